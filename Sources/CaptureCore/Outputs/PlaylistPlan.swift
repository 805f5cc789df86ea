import FoundationEssentials

/// An HLS recording (`.m3u8`): how long its segments are and how many the playlist keeps.
public struct PlaylistPlan: Sendable, Equatable {
    /// The segment length to cut at, in seconds: each segment starts with a keyframe asked for
    /// at a multiple of it.
    public let segmentSeconds: Double
    /// How many segments the playlist lists, a sliding window whose older segments are deleted;
    /// nil: every one (an event playlist, which players may seek back through).
    public let keep: Int?

    /// The length when none is asked, in seconds: FFmpeg's own (`hls_time`).
    public static let defaultSegmentSeconds = 2.0

    public init(segmentSeconds: Double, keep: Int?) {
        self.segmentSeconds = segmentSeconds
        self.keep = keep
    }

    /// The hls muxer's options for the playlist at `path`: MPEG-TS segments beside it, named
    /// after it (`cam.m3u8` gives `cam-00000.ts`, ...); segments and playlist written under a
    /// temporary name and renamed when complete, so whatever a reader finds is whole.
    func muxerOptions(playlist path: String) -> [String: String] {
        var flags = ["temp_file", "independent_segments"]
        if keep != nil { flags.append("delete_segments") }
        var options = [
            "hls_time": DurationValue.text(segmentSeconds), "hls_list_size": "\(keep ?? 0)",
            "hls_segment_type": "mpegts", "hls_segment_filename": Self.segmentPattern(playlist: path),
            "hls_flags": flags.joined(separator: "+"),
        ]
        // An event playlist only grows: players may offer the whole recording while it goes on.
        if keep == nil { options["hls_playlist_type"] = "event" }
        return options
    }

    /// `cam.m3u8` -> `cam-%05d.ts`, in the playlist's folder; a `%` of the name is kept as one.
    static func segmentPattern(playlist path: String) -> String {
        segmentName(playlist: path, number: nil)
    }

    /// The name of segment `number` (from 0) of the playlist at `path`, or with nil the muxer's
    /// pattern for it.
    static func segmentName(playlist path: String, number: Int?) -> String {
        let folder = path.pathDirectory
        var stem = path.pathLastComponent
        if stem.lowercased().hasSuffix(".m3u8") { stem.removeLast(5) }
        let name =
            number.map { stem + "-" + String(repeating: "0", count: max(0, 5 - String($0).count)) + String($0) + ".ts" }
            ?? stem.replacing("%", with: "%%") + "-%05d.ts"
        return folder.isEmpty ? name : folder.pathAppending(name)
    }
}

extension PlaylistPlan {
    /// Refuses a playlist that exists, or segments a recording before left beside it (their
    /// names would be used again), unless `replacing`; and a folder that cannot be written.
    ///
    /// - Throws: `.outputExists` naming the first such file, `.cannotCreate` (73).
    static func check(playlist path: String, replacing: Bool) throws(CaptureError) {
        try OutputFile.check(path: path, replacing: replacing)
        guard !replacing else { return }
        let folder = path.pathDirectory.isEmpty ? "." : path.pathDirectory
        let first = segmentName(playlist: path, number: 0).pathLastComponent
        let prefix = String(first.dropLast("00000.ts".count))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let old = names.filter { name in
            guard name.hasPrefix(prefix), name.hasSuffix(".ts") else { return false }
            let number = name.dropFirst(prefix.count).dropLast(3)
            return number.count >= 5 && number.allSatisfy { $0.isASCII && $0.isNumber }
        }
        if let found = old.sorted().first {
            throw .outputExists(path: path.pathDirectory.isEmpty ? found : path.pathDirectory.pathAppending(found))
        }
    }
}
