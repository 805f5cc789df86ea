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
    /// The write failure that ended it: the muxer is then left without its trailer, which would
    /// write the playlist again over the last whole one.
    private var failure: CaptureError?
    /// The packets handed to the muxer within its interleaving window of the latest one, as
    /// (decode time in microseconds, bytes): what its queue may still hold, and one write may
    /// bring to the disk with it.
    private var queued: [(time: Int64, bytes: Int64)] = []

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

    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int { try container.addStream(source) }

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
            try claim()
            do {
                // `file:` keeps a colon in the path from being read as a protocol.
                try container.writeHeader(to: "file:" + path, options: plan.muxerOptions(playlist: path))
            } catch {
                throw .creatingFailed(error, path: path, formatName: "hls")
            }
        }
        if let ticks = packet.dts ?? packet.pts {
            let time = container.microseconds(ofTicks: ticks, stream: stream)
            let latest = max(time, queued.last?.time ?? time)
            queued.removeAll { $0.time < latest - PlaylistPlan.interleaveWindow }
            queued.append((latest, Int64(packet.size)))
        }
        try checkRoom()
        do {
            try container.write(packet, stream: stream)
        } catch {
            throw .writeFailed(error, subject: path, kept: "the playlist and its segments")
        }
    }

    /// Takes the playlist's name before the muxer writes anything: the name is created
    /// (`O_EXCL`, unless replacing), so a second recording started meanwhile is refused instead
    /// of writing segments of the same names; with replacing, the segments of the recording it
    /// replaces go, so none of them stays behind unlisted.
    private func claim() throws(CaptureError) {
        try PlaylistPlan.check(playlist: path, replacing: replacing)
        if replacing {
            for old in PlaylistPlan.segments(beside: path) { unlink(old) }
            return
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let cause = Errno.current
            if cause == .exists { throw .outputExists(path: path) }
            throw .cannotCreate(path: path, reason: cause.description)
        }
        // Until the first segment is whole, an empty playlist.
        let text = "#EXTM3U\n"
        _ = Glibc.write(fd, text, text.utf8.count)
        Glibc.close(fd)
    }

    /// Checks, before each packet, that the folder has room for what the muxer may write with
    /// it: every packet its interleaving queue may hold (those within `interleaveWindow` of the
    /// latest, with MPEG-TS's packetization on top, 188 bytes for every 184), at a cut the rest
    /// of the segment (its 32 KiB buffer), and the playlist again. FFmpeg's hls muxer does not
    /// report a failed write, and writes the playlist again, empty, over the last whole one when
    /// the disk is full; so a full file system is caught here, and the playlist stays as last
    /// written.
    ///
    /// - Throws: `.writeFailed` with `ENOSPC` (74).
    private func checkRoom() throws(CaptureError) {
        if let failure { throw failure }
        var space = statvfs()
        guard statvfs(path.pathDirectory.isEmpty ? "." : path.pathDirectory, &space) == 0 else { return }
        let blocks = geteuid() == 0 ? space.f_bfree : space.f_bavail
        var status = stat()
        let playlist = stat(path, &status) == 0 ? Int64(status.st_size) : 0
        let pending = queued.reduce(0) { $0 + $1.bytes } * 188 / 184 + 188 * Int64(queued.count)
        guard Int64(blocks) * Int64(space.f_frsize) < 64 << 10 + 2 * playlist + pending else { return }
        failure = .writeFailed(FFmpegError(-ENOSPC, call: "avio_write"), subject: path, kept: "the playlist")
        throw failure!
    }

    /// Writes the last segment and the playlist with its end mark, then reads the playlist back
    /// as a player would. After a failed write, only lets go: the playlist lists what was whole.
    func finish(_ recorded: RecordedStreams) -> OutputReport {
        var report = OutputReport(name: path, bytes: 0)
        guard container.headerWritten else { return report }
        if let failure {
            container.abandon()
            for partial in PlaylistPlan.segments(beside: path) where partial.hasSuffix(".tmp") { unlink(partial) }
            report.failure = failure
            report.segments = segmentFiles().count
            report.bytes = bytesWritten
            report.duration = recorded.encodedDuration
            return report
        }
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
