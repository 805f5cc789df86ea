/// An HLS media playlist (RFC 8216, section 4.3), as the hls muxer writes it: its header tags and
/// its segments in order. Read from the muxer's working playlist and written again as the
/// recording's own, which lists the segments the retention limits keep.
///
/// A pure value.
struct MediaPlaylist: Equatable {
    /// One media segment: its URI as listed (relative to the playlist), its sequence number and
    /// the tags before its URI (`#EXTINF`, and any such as `#EXT-X-DISCONTINUITY`), verbatim.
    struct Segment: Equatable {
        var sequence: Int
        var uri: String
        var tags: [String]
        /// Its duration from `#EXTINF`, in seconds (0 when absent).
        var seconds: Double {
            guard let info = tags.first(where: { $0.hasPrefix("#EXTINF:") }) else { return 0 }
            return Double(info.dropFirst("#EXTINF:".count).prefix { $0 != "," }) ?? 0
        }
    }

    /// The header's tags other than those `text` writes itself (`#EXTM3U`, the target duration,
    /// the media sequence, the playlist type), in order: the version, independent segments.
    var header: [String] = []
    var segments: [Segment] = []
    /// `#EXT-X-ENDLIST`: no segment follows.
    var ended = false

    /// Tags of the playlist as a whole; any other tag before a URI belongs to that segment.
    private static let headerTags = [
        "#EXT-X-VERSION", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-ALLOW-CACHE", "#EXT-X-DISCONTINUITY-SEQUENCE",
        "#EXT-X-START", "#EXT-X-I-FRAMES-ONLY",
    ]
    /// Tags `text` writes from the segments it lists.
    private static let ownTags = ["#EXTM3U", "#EXT-X-TARGETDURATION", "#EXT-X-MEDIA-SEQUENCE", "#EXT-X-PLAYLIST-TYPE"]

    init(header: [String] = [], segments: [Segment] = [], ended: Bool = false) {
        self.header = header
        self.segments = segments
        self.ended = ended
    }

    /// Reads a playlist's text; lines it does not know are kept with the segment they precede.
    init(parsing text: String) {
        var sequence = 0
        var pending: [String] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = String(raw)
            let tag = String(line.prefix { $0 != ":" })
            if line.isEmpty || (line.hasPrefix("#") && !line.hasPrefix("#EXT")) { continue }
            if tag == "#EXT-X-MEDIA-SEQUENCE" {
                sequence = Int(line.dropFirst(tag.count + 1)) ?? 0
            } else if tag == "#EXT-X-ENDLIST" {
                ended = true
            } else if Self.ownTags.contains(tag) {
                continue
            } else if Self.headerTags.contains(tag) {
                if !header.contains(line) { header.append(line) }
            } else if line.hasPrefix("#") {
                pending.append(line)
            } else {
                segments.append(Segment(sequence: sequence + segments.count, uri: line, tags: pending))
                pending = []
            }
        }
    }

    /// The playlist's text. The target duration is the longest listed segment rounded, and no
    /// less than `targetSeconds`, as players expect none longer; an event playlist
    /// (`#EXT-X-PLAYLIST-TYPE:EVENT`) is one that only grows.
    func text(targetSeconds: Int, event: Bool) -> String {
        let longest = segments.map { Int($0.seconds.rounded()) }.max() ?? 0
        var lines = ["#EXTM3U"]
        lines += header.filter { $0.hasPrefix("#EXT-X-VERSION") }
        lines.append("#EXT-X-TARGETDURATION:\(max(targetSeconds, longest))")
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(segments.first?.sequence ?? 0)")
        if event { lines.append("#EXT-X-PLAYLIST-TYPE:EVENT") }
        lines += header.filter { !$0.hasPrefix("#EXT-X-VERSION") }
        for segment in segments { lines += segment.tags + [segment.uri] }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
