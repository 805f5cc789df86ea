import Glibc

/// One file of a series the recording writes one after another: a segment of `--segment-time`
/// or an event clip. It owns its muxer, holds the file's `SegmentLock` while written, keeps the
/// per-stream origins that put the file's first packet at 0, and counts what it holds.
///
/// Used by the loop's thread until it is handed whole to a finisher, after which nothing else
/// touches it.
final class SeriesFileWriter: @unchecked Sendable {
    let number: Int
    let container: OutputContainer
    /// Set when its header is written.
    var path = ""
    /// Where it starts on the recording's clock, microseconds.
    var start: Int64 = 0
    /// Per stream, the ticks that become its 0: the cut for video, the first packet's start
    /// for audio (within one audio packet of the cut), so that both start at 0.
    var origins: [Int64?] = []
    var frames = 0
    var samples: Int64 = 0
    /// The end of its last packet, microseconds on the recording's clock.
    var end: Int64 = 0
    /// Set once no more video (audio) can come for it: the cut's keyframe (an audio packet
    /// past the cut) went to the next one.
    var videoDone = false
    var audioDone = false
    /// Holds the file's `SegmentLock` from its header until it is finished; -1 when none.
    var lockDescriptor: Int32 = -1

    init(number: Int, container: OutputContainer) {
        self.number = number
        self.container = container
    }

    deinit { unlock() }

    /// Writes its header to a new file at `path`, starting at `time` on the recording's clock
    /// with `origins` (`OutputFile.create`); locked (`SegmentLock`) before it has its name, so
    /// another recorder's retention never finds it unlocked.
    ///
    /// - Throws: `.outputExists`, `.cannotCreate` or `.io` when the file cannot be made.
    func create(
        path: String, at time: Int64, origins: [Int64?], options: [String: String], replacing: Bool,
        formatName: String
    ) throws(CaptureError) {
        self.path = path
        start = time
        end = time
        self.origins = origins
        do {
            try OutputFile(path: path).create(container, options: options, replacing: replacing) {
                self.lockDescriptor = SegmentLock.hold($0)
            }
        } catch {
            unlock()
            throw .creatingFailed(error, path: path, formatName: formatName)
        }
    }

    /// Writes `packet` of `stream`, which starts at `time` (microseconds on the recording's
    /// clock), on the file's own times: its stream's origin becomes 0. A primed stream's first
    /// packet here goes after `priming`'s copies of the packets before it, on times before 0;
    /// with `remembering`, `priming` keeps this packet for the next file's priming. Counts
    /// its frame or its samples (an encoder's priming before the recording's 0 is no recorded
    /// sample).
    ///
    /// - Throws: `.writeFailed` naming the file and `kept` (what stays whole), or `.failed`
    ///   when FFmpeg cannot reference a packet for the priming.
    func put(
        _ packet: Packet, stream: Int, time: Int64, isVideo: Bool, priming: inout SegmentPriming,
        remembering: Bool, kept: String
    ) throws(CaptureError) {
        let ticks = packet.pts ?? packet.dts ?? 0
        if origins[stream] == nil, priming.primes(stream) {
            origins[stream] = ticks
            for carried in try priming.packets(before: packet, stream: stream) {
                try write(carried, stream: stream, kept: kept)
            }
        }
        if remembering && priming.primes(stream) { try priming.remember(packet, stream: stream) }
        let origin = origins[stream] ?? ticks
        origins[stream] = origin
        // A video packet without a duration lasts one frame: its stream's tick.
        let length = packet.duration > 0 ? packet.duration : isVideo ? 1 : 0
        end = max(end, time + container.microseconds(ofTicks: length, stream: stream))
        packet.pts = packet.pts.map { $0 - origin }
        packet.dts = packet.dts.map { $0 - origin }
        if isVideo {
            frames += 1
        } else {
            samples += max(0, min(packet.duration, ticks + packet.duration))
        }
        try write(packet, stream: stream, kept: kept)
    }

    private func write(_ packet: Packet, stream: Int, kept: String) throws(CaptureError) {
        do {
            try container.write(packet, stream: stream)
        } catch {
            throw .writeFailed(error, subject: path, kept: kept)
        }
    }

    /// Drops the file's `SegmentLock`: another recorder's retention may delete it from now on.
    func unlock() {
        SegmentLock.release(lockDescriptor)
        lockDescriptor = -1
    }

    /// Writes the trailer, moves an MP4's index to the front, and says what the file holds.
    func finish(formatName: String, hasVideo: Bool, hasAudio: Bool) -> RecordingEvent {
        var problem: String?
        do {
            try container.finish()
            if FastStartRewrite.muxers.contains(formatName) {
                try FastStartRewrite.rewrite(path: path, formatName: formatName, spans: container.spans)
            }
        } catch {
            problem = CaptureError.writeCause(error)
        }
        var status = stat()
        let size = stat(path, &status) == 0 ? Int64(status.st_size) : container.bytesWritten
        return RecordingEvent(
            event: .segmentClosed, path: path, number: number, start: SegmentedOutput.seconds(start),
            duration: SegmentedOutput.seconds(end - start), frames: hasVideo ? frames : nil,
            samples: hasAudio ? samples : nil, size: size, problem: problem)
    }
}
