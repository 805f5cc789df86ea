import FoundationEssentials
import Glibc

/// An HLS playlist (`.m3u8`) and its MPEG-TS segments beside it, written by FFmpeg's hls muxer
/// (which opens every file itself), so any web server or CDN can serve the recording while it
/// goes on.
///
/// Each segment starts with a keyframe asked of the encoder at each multiple of the segment
/// length (`wantsKeyframe(at:)`), where the muxer then cuts. Without `--keep` the playlist is an
/// event playlist that lists every segment; with it, a sliding window of that many, the older
/// segments deleted as they leave it. The muxer writes each segment and then the playlist under
/// a temporary name and renames it when complete, so a recording killed at any moment leaves a
/// playlist whose every segment is whole; a finished one ends with `#EXT-X-ENDLIST`.
///
/// Not thread-safe: the recording loop's thread only.
final class PlaylistOutput: RecordingOutput {
    let path: String
    private let plan: PlaylistPlan
    private let container: OutputContainer
    private let replacing: Bool
    /// Where the next keyframe is asked for, microseconds from the start.
    private var nextCut: Int64

    /// Prepares the muxer (`avformat_alloc_output_context2`); nothing is written before the
    /// first packet.
    ///
    /// - Throws: `FFmpegError` when FFmpeg has no hls muxer.
    init(path: String, plan: PlaylistPlan, replacing: Bool) throws(FFmpegError) {
        self.path = path
        self.plan = plan
        self.replacing = replacing
        container = try OutputContainer(name: path, formatName: "hls")
        nextCut = Self.microseconds(plan.segmentSeconds)
    }

    var name: String { path }
    var carriesRecording: Bool { true }
    var wantsGlobalHeader: Bool { container.wantsGlobalHeader }
    var started: Bool { container.headerWritten }
    var bytesWritten: Int64 { segmentFiles().reduce(0) { $0 + $1.bytes } }

    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        switch source {
        case .encoder(let encoder):
            return try container.addStream(encoder: encoder)
        case .copy(let input, let stream, let timeBase):
            return try container.addStream(copying: input, stream: stream, timeBase: timeBase)
        }
    }

    /// A keyframe at each multiple of the segment length, where the muxer then cuts.
    func wantsKeyframe(at time: Int64) throws(CaptureError) -> Bool {
        guard time >= nextCut else { return false }
        let length = Self.microseconds(plan.segmentSeconds)
        nextCut = (time / length + 1) * length
        return true
    }

    /// Writes a packet; the first one writes the header, once no file of a recording before
    /// would be written over unasked.
    func write(_ packet: Packet, stream: Int) throws(CaptureError) {
        if !container.headerWritten {
            try PlaylistPlan.check(playlist: path, replacing: replacing)
            do {
                // `file:` keeps a colon in the path from being read as a protocol.
                try container.writeHeader(to: "file:" + path, options: plan.muxerOptions(playlist: path))
            } catch {
                throw .creatingFailed(error, path: path, formatName: "hls")
            }
        }
        do {
            try container.write(packet, stream: stream)
        } catch {
            throw .writeFailed(error, subject: path, kept: "the playlist and its segments")
        }
    }

    /// Writes the last segment and the playlist with its end mark, then reads the playlist back
    /// as a player would.
    func finish(_ recorded: RecordedStreams) -> OutputReport {
        var report = OutputReport(name: path, bytes: 0)
        guard container.headerWritten else { return report }
        do {
            try container.finish()
        } catch {
            report.failure = .writeFailed(error, subject: path, kept: "the playlist and its segments")
        }
        let files = segmentFiles()
        report.segments = files.count
        report.bytes = files.reduce(0) { $0 + $1.bytes }
        report.duration = recorded.encodedDuration
        do {
            let reading = try InputContainer(url: "file:" + path, format: "hls")
            try reading.findStreamInfo()
            if reading.streamCount != recorded.count, report.failure == nil {
                report.failure = .io(
                    subject: path,
                    reason:
                        "the finished playlist reads back with \(reading.streamCount) streams instead of \(recorded.count)"
                )
            }
        } catch {
            if report.failure == nil {
                report.failure = .io(subject: path, reason: "the finished playlist does not read back: \(error)")
            }
        }
        return report
    }

    /// The segment files the playlist lists now, with their sizes in bytes.
    private func segmentFiles() -> [(path: String, bytes: Int64)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        let folder = path.pathDirectory
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
            let file = folder.isEmpty || line.hasPrefix("/") ? String(line) : folder.pathAppending(String(line))
            var status = stat()
            return (file, stat(file, &status) == 0 ? Int64(status.st_size) : 0)
        }
    }

    private static func microseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1e6).rounded()) }
}
