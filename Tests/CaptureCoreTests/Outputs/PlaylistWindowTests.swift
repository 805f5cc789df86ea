import Testing

@testable import CaptureCore

/// The recorder's own HLS playlist: the muxer's working playlist read back, and the window of
/// segments the retention limits keep listed and on disk.
@Suite struct PlaylistWindowTests {
    static let working = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXTINF:2.000000,
        cam-00007.ts
        #EXT-X-DISCONTINUITY
        #EXTINF:1.960000,
        cam-00008.ts
        #EXT-X-ENDLIST

        """

    @Test func theMuxersPlaylistReadsBack() {
        let read = MediaPlaylist(parsing: Self.working)
        #expect(read.header == ["#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"])
        #expect(
            read.segments.map(\.sequence) == [7, 8] && read.segments.map(\.uri) == ["cam-00007.ts", "cam-00008.ts"])
        #expect(read.segments[1].tags == ["#EXT-X-DISCONTINUITY", "#EXTINF:1.960000,"])
        #expect(read.segments.map(\.seconds) == [2, 1.96] && read.ended)
    }

    @Test func itsTextListsWhatItHolds() {
        var read = MediaPlaylist(parsing: Self.working)
        read.segments.removeFirst()
        let text = read.text(targetSeconds: 2, event: false)
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:8\n"))
        #expect(text.hasSuffix("#EXT-X-DISCONTINUITY\n#EXTINF:1.960000,\ncam-00008.ts\n#EXT-X-ENDLIST\n"))
        #expect(MediaPlaylist(parsing: text) == read)
        // A segment longer than asked raises the target duration, as players expect none longer.
        read.segments[0].tags = ["#EXTINF:3.400000,"]
        #expect(
            read.text(targetSeconds: 2, event: true).contains(
                "#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:8\n#EXT-X-PLAYLIST-TYPE:EVENT\n"))
    }

    static func window(_ retention: RetentionPolicy, sizes: [Int64]) -> PlaylistWindow {
        var window = PlaylistWindow(retention: retention)
        for (number, bytes) in sizes.enumerated() {
            window.add(.init(segment: .init(sequence: number, uri: "s\(number).ts", tags: []), bytes: bytes))
        }
        return window
    }

    @Test func withoutLimitsEverySegmentStays() {
        var window = Self.window(RetentionPolicy(), sizes: [10, 10, 10])
        #expect(window.apply(currentBytes: 5).isEmpty && window.listed.count == 3)
    }

    /// `--keep 2` of five: the last two listed, the one before them kept unlisted for players
    /// still fetching it, the older two deleted.
    @Test func keepListsTheNewestAndLingersOne() {
        var window = Self.window(RetentionPolicy(keep: 2), sizes: [10, 10, 10, 10, 10])
        #expect(window.apply(currentBytes: 0).map(\.segment.sequence) == [0, 1])
        #expect(window.listed.map(\.segment.sequence) == [3, 4])
        #expect(window.onDisk.map(\.segment.sequence) == [2, 3, 4])
        // A segment seen again is no new one.
        window.add(.init(segment: .init(sequence: 4, uri: "s4.ts", tags: []), bytes: 10))
        #expect(window.nextSequence == 5 && window.onDisk.count == 3)
    }

    /// A budget of 35 bytes with 5 being written: three of 10 listed; the one before them would
    /// exceed it, so it goes too.
    @Test func aBudgetCountsWhatIsOnDisk() {
        var window = Self.window(RetentionPolicy(maxTotalBytes: 35), sizes: [10, 10, 10, 10, 10])
        #expect(window.apply(currentBytes: 5).map(\.segment.sequence) == [0, 1])
        #expect(window.listed.map(\.segment.sequence) == [2, 3, 4] && window.onDisk.count == 3)
        // A segment larger than the budget alone still stays listed: never down to nothing.
        window.add(.init(segment: .init(sequence: 5, uri: "s5.ts", tags: []), bytes: 100))
        #expect(window.apply(currentBytes: 0).map(\.segment.sequence) == [2, 3, 4])
        #expect(window.listed.map(\.segment.sequence) == [5])
    }
}
