import FoundationEssentials
import Glibc

/// An HLS recording (`.m3u8`): how long its segments are and how many the playlist keeps.
public struct PlaylistPlan: Sendable, Equatable {
    /// The segment length to cut at, in whole seconds (a playlist's target duration is a whole
    /// number that no segment may exceed): each segment starts with a keyframe asked for at a
    /// multiple of it.
    public let segmentSeconds: Double
    /// How many segments the playlist lists, a sliding window whose older segments are deleted;
    /// nil: no limit by count.
    public let keep: Int?
    /// The most bytes its segments may take on disk, the one being written included; the
    /// oldest leave the playlist and the disk first. Nil: no limit by size.
    public let maxTotalBytes: Int64?

    /// The length when none is asked, in seconds: FFmpeg's own (`hls_time`).
    public static let defaultSegmentSeconds = 2.0

    public init(segmentSeconds: Double, keep: Int?, maxTotalBytes: Int64? = nil) {
        self.segmentSeconds = segmentSeconds
        self.keep = keep
        self.maxTotalBytes = maxTotalBytes
    }

    /// The limits that choose the segments kept.
    var retention: RetentionPolicy { RetentionPolicy(keep: keep, maxTotalBytes: maxTotalBytes) }

    /// An event playlist lists every segment, and players may seek back through all of it: one
    /// without limits.
    public var isEvent: Bool { retention.isEmpty }

    /// How many segments the muxer's working playlist lists: enough to see each new one, as it
    /// is read after every packet.
    static let workingWindow = 5

    /// Microseconds of decode time the muxer's interleaving queue may span
    /// (`max_interleave_delta`), FFmpeg's own 10 s: the queue holds audio back until the video
    /// that an encoder's lookahead delays catches up, so the audio of a segment is cut with its
    /// video (with 1 s, audio more than a second ahead reached the muxer first and fell into the
    /// segment before). What it may hold back stays bounded, so the room a write needs is known.
    static let interleaveWindow: Int64 = 10_000_000

    /// The hls muxer's options for the playlist at `path`: MPEG-TS segments beside it, named
    /// after it (`cam.m3u8` gives `cam-00000.ts`, ...), each written under a temporary name
    /// (`NAME.tmp`) and renamed when complete, so whatever a reader finds is whole. The muxer's
    /// own playlist is a working one (`workingPlaylist`) listing the newest few; the recorder
    /// lists and deletes the segments itself (`PlaylistWindow`), as the muxer's window counts
    /// segments only and cannot hold a size budget.
    func muxerOptions(playlist path: String) -> [String: String] {
        [
            "hls_time": DurationValue.text(segmentSeconds), "hls_list_size": "\(Self.workingWindow)",
            "hls_segment_type": "mpegts", "hls_segment_filename": Self.segmentPattern(playlist: path),
            "hls_flags": "temp_file+independent_segments", "max_interleave_delta": "\(Self.interleaveWindow)",
        ]
    }

    /// Where the muxer writes its working playlist for the playlist at `path`: hidden beside it
    /// (`.cam.m3u8`), as its segments' URIs are relative to its folder. Removed when the
    /// recording ends.
    static func workingPlaylist(_ path: String) -> String {
        let name = "." + path.pathLastComponent
        let folder = path.pathDirectory
        return folder.isEmpty ? name : folder.pathAppending(name)
    }

    /// The muxer's pattern for the segments of the playlist at `path`: `cam.m3u8` ->
    /// `cam-%05d.ts` in its folder. A relative folder starts with `./`, so that a colon in it is
    /// not read as a protocol (the muxer deletes old segments by this name, so `file:` would not do).
    static func segmentPattern(playlist path: String) -> String {
        let pattern = segmentName(playlist: path, number: nil)
        return pattern.hasPrefix("/") ? pattern : "./" + pattern
    }

    /// The name of segment `number` (from 0) of the playlist at `path`, or with nil the muxer's
    /// field for the number.
    static func segmentName(playlist path: String, number: Int?) -> String {
        let stem = String(path.pathLastComponent.dropLast(".m3u8".count))
        let digits = number.map { String($0) }
        let field = digits.map { String(repeating: "0", count: max(0, 5 - $0.count)) + $0 } ?? "%05d"
        let folder = path.pathDirectory
        return folder.isEmpty ? "\(stem)-\(field).ts" : folder.pathAppending("\(stem)-\(field).ts")
    }

    /// The characters a playlist's name may have: its segments' names are written into the
    /// playlist as relative URLs, which `?`, `#`, `:`, `%`, spaces and the like would change,
    /// and the muxer reads `%` as a field of its own.
    static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")

    /// Refuses what cannot be the name of a playlist, before anything is opened: a name not
    /// ending in `.m3u8`, characters a URL would misread, a name too long for the muxer's
    /// temporary files (`NAME.tmp`).
    ///
    /// - Throws: `.usage` (64).
    static func checkName(_ path: String) throws(CaptureError) {
        let name = path.pathLastComponent
        guard name.lowercased().hasSuffix(".m3u8"), name.count > ".m3u8".count else {
            throw .usage("'\(path)': an HLS playlist's name ends in .m3u8")
        }
        guard name.allSatisfy({ nameCharacters.contains($0) }) else {
            throw .usage(
                "'\(name)': an HLS playlist's segments are named after it and listed in it as URLs; "
                    + "name it with letters, digits, '-', '_', '.' and '~' only")
        }
        let longest = segmentName(playlist: name, number: 99999).utf8.count
        if max(workingPlaylist(name).utf8.count, longest) + ".tmp".count > Int(NAME_MAX) {
            throw .usage(
                "'\(name)': too long for its segments' names (\(NAME_MAX) bytes at most with .tmp); shorten it")
        }
    }

    /// The segments in the playlist's folder named as its own would be, whoever made them.
    static func segments(beside path: String) -> [String] {
        let folder = path.pathDirectory
        let prefix = String(segmentName(playlist: path, number: 0).pathLastComponent.dropLast("00000.ts".count))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return names.filter { name in
            guard name.hasPrefix(prefix), name.hasSuffix(".ts") || name.hasSuffix(".ts.tmp") else { return false }
            let number = name.dropFirst(prefix.count).prefix { $0 != "." }
            return number.count >= 5 && number.allSatisfy { $0.isASCII && $0.isNumber }
        }.sorted().map { folder.isEmpty ? $0 : folder.pathAppending($0) }
    }

    /// Refuses a playlist that exists, or segments a recording before left beside it (their
    /// names would be used again), unless `replacing`; and a folder that cannot be written.
    ///
    /// - Throws: `.outputExists` naming the first such file, `.cannotCreate` (73).
    static func check(playlist path: String, replacing: Bool) throws(CaptureError) {
        try OutputFile.check(path: path, replacing: replacing)
        if !replacing, let found = segments(beside: path).first { throw .outputExists(path: found) }
    }
}
