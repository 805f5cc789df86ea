import FoundationEssentials
import Glibc

/// An HLS playlist (`.m3u8`) and its MPEG-TS segments beside it, written by FFmpeg's hls muxer
/// (which opens every file itself), so any web server or CDN can serve the recording while it
/// goes on.
///
/// Each segment starts with a keyframe asked of the encoder at each multiple of the segment
/// length (`wantsKeyframe(at:)`), where the muxer then cuts. The muxer writes each segment under
/// a temporary name, renames it when complete and then lists it in its working playlist; the
/// recorder reads that after every packet and writes the playlist itself (`PlaylistWindow`),
/// also under a temporary name renamed when complete, so a recording killed at any moment
/// leaves a playlist whose every segment is whole. Without limits it is an event playlist that
/// lists every segment; `--keep` and `--max-total-size` make it a sliding window, the older
/// segments deleted as they leave it. A finished one ends with `#EXT-X-ENDLIST`.
///
/// Not thread-safe: the recording loop's thread only.
final class PlaylistOutput: RecordingOutput {
    let path: String
    private let plan: PlaylistPlan
    private let container: OutputContainer
    private let replacing: Bool
    /// The muxer's working playlist (`PlaylistPlan.workingPlaylist`).
    private let working: String
    /// The working playlist as last read (inode, size, modification), so it is parsed only when
    /// the muxer wrote it again.
    private var workingStamp: [Int] = []
    /// The header tags of the working playlist.
    private var header: [String] = []
    private var window: PlaylistWindow
    /// Where the next keyframe is asked for, microseconds from the start.
    private var nextCut: Int64
    /// The write failure that ended it: the muxer is then left without its trailer, which would
    /// write the playlist again over the last whole one.
    private var failure: CaptureError?
    /// The packets handed to the muxer that its interleaving queue may still hold, as (decode
    /// time in microseconds, bytes): what one write may bring to the disk with it.
    private var queued: [(time: Int64, bytes: Int64)] = []
    /// The latest decode time handed to the muxer for each stream, microseconds.
    private var latest: [Int: Int64] = [:]
    private var streamCount = 0

    /// Prepares the muxer (`avformat_alloc_output_context2`); nothing is written before the
    /// first packet.
    ///
    /// - Throws: `FFmpegError` when FFmpeg has no hls muxer.
    init(path: String, plan: PlaylistPlan, replacing: Bool) throws(FFmpegError) {
        self.path = path
        self.plan = plan
        self.replacing = replacing
        working = PlaylistPlan.workingPlaylist(path)
        window = PlaylistWindow(retention: plan.retention)
        container = try OutputContainer(name: path, formatName: "hls")
        nextCut = Self.microseconds(plan.segmentSeconds)
    }

    var name: String { path }
    var carriesRecording: Bool { true }
    var wantsGlobalHeader: Bool { container.wantsGlobalHeader }
    var started: Bool { container.headerWritten }
    var bytesWritten: Int64 { window.listed.reduce(0) { $0 + $1.bytes } }

    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        let index = try container.addStream(source)
        streamCount += 1
        return index
    }

    /// A keyframe at each multiple of the segment length, where the muxer then cuts.
    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool {
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
                try container.writeHeader(to: "file:" + working, options: plan.muxerOptions(playlist: path))
            } catch {
                throw .creatingFailed(error, path: path, formatName: "hls")
            }
        }
        if let ticks = packet.dts ?? packet.pts {
            let time = container.microseconds(ofTicks: ticks, stream: stream)
            latest[stream] = max(latest[stream] ?? time, time)
            queued.append((time, Int64(packet.size)))
            let held = heldFrom
            queued.removeAll { $0.time < held }
        }
        try checkRoom()
        do {
            try container.write(packet, stream: stream)
        } catch {
            throw .writeFailed(error, subject: path, kept: "the playlist and its segments")
        }
        try update()
    }

    /// Takes the playlist's name before the muxer writes anything: the name is created
    /// (`O_EXCL`, unless replacing), so a second recording started meanwhile is refused instead
    /// of writing segments of the same names; with replacing, the segments of the recording it
    /// replaces go, so none of them stays behind unlisted.
    private func claim() throws(CaptureError) {
        try PlaylistPlan.check(playlist: path, replacing: replacing)
        // A working playlist a killed recording left would be read as this one's.
        unlink(working)
        unlink(working + ".tmp")
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

    /// The earliest decode time the muxer's interleaving queue may still hold: it writes a packet
    /// once every stream has one queued after it, so only what lies past the stream furthest
    /// behind waits, and never more than `interleaveWindow`.
    private var heldFrom: Int64 {
        guard let newest = latest.values.max() else { return .min }
        let behind = latest.count == streamCount ? latest.values.min() ?? .min : .min
        return max(behind, newest - PlaylistPlan.interleaveWindow)
    }

    /// Checks, before each packet, that the folder has room for what the muxer may write with
    /// it: every packet its interleaving queue may hold (`heldFrom`, with MPEG-TS's packetization
    /// on top, 188 bytes for every 184), at a cut the rest
    /// of the segment (its 32 KiB buffer), and the playlists again. FFmpeg's hls muxer does not
    /// report a failed write, and would cut a segment short and list it when the disk is full;
    /// so a full file system is caught here, and the playlist stays as last written.
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
        defer {
            unlink(working)
            unlink(working + ".tmp")
        }
        if failure == nil {
            do {
                try container.finish()
                try update()
            } catch let error as FFmpegError {
                failure = .writeFailed(error, subject: path, kept: "the playlist and its segments")
            } catch {
                failure = error as? CaptureError
            }
        } else {
            container.abandon()
            // The muxer does not report a failed write: a segment the disk cut short may have been
            // renamed to its own name, unlisted. What the window does not know goes, which frees
            // room for the playlist to be written once more, ended: nothing follows.
            let known = Set(window.onDisk.map { file($0.segment.uri) })
            for partial in PlaylistPlan.segments(beside: path) where !known.contains(partial) { unlink(partial) }
            let cause = failure
            try? publish(ended: true)
            failure = cause
        }
        report.failure = failure
        report.segments = window.listed.count
        report.bytes = bytesWritten
        // After a failure, the playlist's length: what it lists is all a player gets.
        report.duration =
            failure == nil ? recorded.encodedDuration : window.listed.reduce(0) { $0 + $1.segment.seconds }
        if failure == nil { report.failure = readBack(streams: recorded.count) }
        return report
    }

    /// Reads the finished playlist back as a player would; what is wrong with it, if anything.
    private func readBack(streams: Int) -> CaptureError? {
        do {
            let reading = try InputContainer(url: "file:" + path, format: "hls")
            try reading.findStreamInfo()
            guard reading.streamCount == streams else {
                return .io(
                    subject: path,
                    reason: "the finished playlist reads back with \(reading.streamCount) streams instead of \(streams)"
                )
            }
            return nil
        } catch {
            return .io(subject: path, reason: "the finished playlist does not read back: \(error)")
        }
    }

    /// Takes in what the muxer's working playlist lists since it was last read: each new segment
    /// joins the window, the playlist is written again, and the segments the limits no longer
    /// keep are deleted once it no longer lists them. The muxer keeps a segment in memory until
    /// it is cut and then lists it in the same call, so the window changes only then; the
    /// segment being written counts as large as the last one finished.
    ///
    /// - Throws: `.writeFailed` when the playlist cannot be written (74).
    private func update() throws(CaptureError) {
        guard let read = readWorking() else { return }
        // A working playlist the full disk cut short has lost its header, or lists a segment
        // whose file is not whole: neither is taken.
        if !read.header.isEmpty { header = read.header }
        for segment in read.segments where segment.sequence >= window.nextSequence {
            let bytes = Self.size(of: file(segment.uri))
            guard bytes > 0 else { break }
            window.add(.init(segment: segment, bytes: bytes))
        }
        let gone = window.apply(currentBytes: read.ended ? 0 : window.onDisk.last?.bytes ?? 0)
        try publish(ended: read.ended)
        for entry in gone { unlink(file(entry.segment.uri)) }
    }

    /// The muxer's working playlist, when it was written since it was last read.
    private func readWorking() -> MediaPlaylist? {
        var status = stat()
        guard stat(working, &status) == 0 else { return nil }
        let stamp = [Int(status.st_ino), Int(status.st_size), status.st_mtim.tv_sec, status.st_mtim.tv_nsec]
        guard stamp != workingStamp, let text = try? String(contentsOfFile: working, encoding: .utf8) else {
            return nil
        }
        workingStamp = stamp
        return MediaPlaylist(parsing: text)
    }

    /// Writes the playlist of the segments listed, under a temporary name renamed when whole.
    ///
    /// - Throws: `.writeFailed` naming the cause (74); the playlist stays as last written.
    private func publish(ended: Bool) throws(CaptureError) {
        let listing = MediaPlaylist(header: header, segments: window.listed.map(\.segment), ended: ended)
        let text = listing.text(targetSeconds: Int(plan.segmentSeconds), event: plan.isEvent)
        let temporary = path + ".tmp"
        let cause = Self.write(Array(text.utf8), to: temporary) ?? (rename(temporary, path) == 0 ? nil : .current)
        guard let cause else { return }
        unlink(temporary)
        failure = .writeFailed(FFmpegError(-cause.rawValue, call: "write"), subject: path, kept: "the playlist")
        throw failure!
    }

    /// Writes `bytes` into a new file; the cause when it cannot (a short write: the disk is full).
    private static func write(_ bytes: [UInt8], to file: String) -> Errno? {
        let fd = Glibc.open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .current }
        let count = Glibc.write(fd, bytes, bytes.count)
        let cause: Errno? = count < 0 ? .current : count < bytes.count ? Errno(rawValue: ENOSPC) : nil
        return Glibc.close(fd) == 0 || cause != nil ? cause : .current
    }

    /// A listed URI's file: relative to the playlist's folder.
    private func file(_ uri: String) -> String {
        let folder = path.pathDirectory
        return folder.isEmpty || uri.hasPrefix("/") ? uri : folder.pathAppending(uri)
    }

    /// A file's size in bytes; 0 when it is not there.
    private static func size(of file: String) -> Int64 {
        var status = stat()
        return stat(file, &status) == 0 ? Int64(status.st_size) : 0
    }

    private static func microseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1e6).rounded()) }
}
