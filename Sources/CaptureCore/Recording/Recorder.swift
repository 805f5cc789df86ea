internal import CFFmpeg
import Foundation

/// Records cameras and microphones to one file: `capture record`.
///
/// Each input gets a reader thread that stamps its packets on the session clock and queues them;
/// the thread calling `run` owns the encoders and the muxer and takes the packets in time order.
/// The output file is created only when the first packet is ready to be written, so a recording
/// that fails earlier leaves no file; once created, it is always finalized (trailer written),
/// whatever ends the recording.
public final class Recorder {
    public let request: RecordingRequest
    let stop: StopSignal
    /// Called with one line for each warning (an odd frame size scaled, an option ignored).
    public var onWarning: (String) -> Void = { _ in }
    /// Called at most four times a second while recording.
    public var onProgress: ((RecordingProgress) -> Void)?

    /// - Parameters:
    ///   - request: what to record.
    ///   - stop: raised by a signal handler or by code to end the recording cleanly.
    public init(request: RecordingRequest, stop: StopSignal) {
        self.request = request
        self.stop = stop
    }

    // Set up by `run`, used by the loop.
    var container: ContainerFormat!
    var output: OutputContainer!
    var queue = PacketQueue()
    var readers: [InputReader] = []
    var video: (path: VideoPath, lane: Int, source: InputSource, input: MediaStreamInfo)?
    var audio: (path: AudioPath, lane: Int, source: InputSource, input: MediaStreamInfo)?
    var muxerOptions: [String: String] = [:]
    /// What the audio encoder writes (`setUpAudio`).
    var audioEncoderPlan: AudioEncoderPlan?
    /// The microphone's first sample minus the camera's first frame, as the devices delivered
    /// them, in seconds.
    var measuredStartOffset: Double?
    private var createdFile = false
    /// The controls `applyControls` set, kept for the summary and `--restore-controls`.
    var appliedControls: AppliedControls?
    // Streaming: the outputs (`OutputPlan`), the network ones (fed in `mux`, finished in
    // `finalize`); `output` is nil when there is no file.
    var outputPlan: OutputPlan!
    var streams: [StreamOutput] = []
    /// The file written, or for a stream-only recording the OUTPUT as given.
    var filePath: String { outputPlan?.file ?? request.output }
    /// For a stream-only recording: set once the first packet went to the streams.
    var streamStarted = false

    /// Records until --duration, --frames, the end of the inputs, a stop request, or an error.
    ///
    /// - Returns: the summary; `failure` is set when an error ended a recording whose file was
    ///   already written (it is finalized up to there, exit 74).
    /// - Throws: `CaptureError` for anything that fails before the first packet is written; no
    ///   file is left behind then.
    public func run() throws(CaptureError) -> RecordingResult {
        defer { tearDown() }
        do {
            try prepare()
            var result = try record()
            result.summary.controls = appliedControls?.report
            return result
        } catch {
            // A stop during start-up interrupts FFmpeg's opens and reads with errors of their own;
            // before the file exists, that is a stop with nothing recorded, not a failure.
            if stop.isRequested && !createdFile {
                stoppedBeforeFirstFrame = true
                let by = stop.signal != 0 ? StopSignal.name(of: stop.signal) : "a stop request"
                throw .failed("stopped by \(by) before the first frame; nothing was recorded, no file was written")
            }
            throw error
        }
    }

    /// True when `run` threw because a stop came before anything was written: no file exists,
    /// and a caller may treat it as a clean stop.
    public private(set) var stoppedBeforeFirstFrame = false

    /// Stops the readers and closes the devices. Packets still queued or held by a decoder are
    /// freed first so the devices close here rather than whenever those go; a packet that maps a
    /// device buffer would keep its device open anyway (`DeviceBufferLease`).
    private func tearDown() {
        stop.interrupt.raise()
        queue.close()
        for reader in readers { reader.wait(seconds: 1) }
        video = nil
        audio = nil
        // A reader still blocked in a read (a stalled device) keeps its input; exiting frees it.
        for reader in readers { reader.close() }
        for stream in streams { _ = stream.finish(timeout: 1) }
        restoreControls()
    }

    /// Writes a packet, creating the file and writing the header on the first one.
    func mux(_ packet: Packet, stream: Int) throws(CaptureError) {
        // Streams take a reference first: the file's muxer rescales the packet and takes its payload.
        for output in streams { output.send(packet, stream: stream) }
        guard let output else {
            streamStarted = true
            return
        }
        if !output.headerWritten {
            do {
                try output.writeHeader(options: muxerOptions, replacing: request.force)
                createdFile = true
            } catch {
                // The output removed its temporary file; the path itself was never touched.
                if error.call == "rename" && error.errno == EEXIST {
                    throw .outputExists(path: filePath)
                }
                if error.call == "avio_open" || error.call == "rename" {
                    throw .cannotCreate(path: filePath, reason: error.description)
                }
                throw .failed("\(filePath): the \(output.formatName) muxer refused the streams: \(error)")
            }
        }
        do {
            try output.write(packet, stream: stream)
        } catch {
            throw writeError(error)
        }
    }

    func writeError(_ error: FFmpegError) -> CaptureError {
        if error.errno == ENOSPC {
            return .io(
                subject: filePath,
                reason: "disk full (no space left on device); the file keeps what was written before")
        }
        return .io(subject: filePath, reason: "writing failed: \(error)")
    }

    private func record() throws(CaptureError) -> RecordingResult {
        for reader in readers { reader.start() }
        let startedAt = SessionClock.now()
        let firstTimes = queue.firstTimes(until: startedAt + Int64(request.stallTimeout * 1e6))
        // The recording starts once every device delivers: a camera streams from the moment it is
        // opened, so its first buffers predate a microphone opened after it. What came earlier is
        // skipped; the devices' own start offset is measured and reported. A device whose first
        // data comes late (a sound server's first fragment, up to its old latency after it was
        // opened) holds the start back by 0.3 s at most: the others' frames are kept, and
        // its stream starts later in the file, in step.
        if let v = video.flatMap({ firstTimes[$0.lane] }), let a = audio.flatMap({ firstTimes[$0.lane] }) {
            measuredStartOffset = Double(a - v) / 1e6
        }
        guard let latest = firstTimes.compactMap({ $0 }).max() else {
            // Nothing arrived at all: report what ended the readers, or a stall.
            if case .ended(_, let error?) = queue.next(timeout: 0) { throw error }
            if stop.isRequested { throw .failed("stopped before the first frame; nothing was written") }
            let names = [video?.source.device.name, audio?.source.device.name].compactMap { $0 }
            throw .io(
                subject: names.joined(separator: ", "),
                reason: "no data within \(Self.seconds(request.stallTimeout)) s; the device stalled")
        }
        let t0 = min(latest, max(firstTimes.compactMap { $0 }.min() ?? latest, startedAt + Self.lateStartAllowance))
        stop.keepReadingOnStop()
        // With a camera, the audio ends where its last frame ends, set once the video is done.
        if let duration = request.duration {
            let end = Int64(duration * 1e6)
            video?.path.endTime = end
            if video == nil { audio?.path.endTime = end }
        }

        var failure: CaptureError?
        var stopReason = "end of input"
        var stoppingSince: Int64?
        var endedLanes = Set<Int>()
        var lastProgress = SessionClock.now()
        var lastFlush = SessionClock.now()
        var progressFrames = (time: SessionClock.now(), frames: 0)

        let loopStart = SessionClock.now()
        // --duration ends on the session clock whatever a device's own clock does: a stream whose
        // times went astray would otherwise never reach the end. The margin lets devices deliver
        // what they captured up to the end (a sound server's last fragment).
        let deadline = request.duration.map { t0 + Int64(($0 + 2) * 1e6) }

        loop: while true {
            let now = SessionClock.now()
            if let deadline, now >= deadline, stoppingSince == nil {
                stopReason = "duration"
                break loop
            }
            if stop.isRequested && stoppingSince == nil {
                stoppingSince = now
                stopReason = stop.signal != 0 ? StopSignal.name(of: stop.signal) : "stop requested"
                let end = now - t0
                video?.path.endTime = min(video?.path.endTime ?? end, end)
                if video == nil { audio?.path.endTime = min(audio?.path.endTime ?? end, end) }
            }
            if let since = stoppingSince {
                // A device delivers within a frame or an audio period; one silent for half a
                // second after the stop is stalled in a read nothing interrupts: finalize without
                // it rather than keep the user waiting (2 s at most for a slow one).
                let waitingFor = [video.map { ($0.lane, $0.path.done) }, audio.map { ($0.lane, $0.path.done) }]
                    .compactMap { $0 }.filter { !$0.1 && !endedLanes.contains($0.0) }
                let lastHeard = waitingFor.compactMap { queue.lastArrival(lane: $0.0) }.max() ?? since
                if now - since > 2_000_000 || now - max(since, lastHeard) > 500_000 { break loop }
            }
            if allDone(endedLanes: endedLanes) { break loop }

            switch queue.next(timeout: 0.1) {
            case .packet(let lane, let item):
                let time = item.time - t0
                if let video, lane == video.lane {
                    video.path.noteDropped(times: queue.takeDropped(lane: lane).map { $0 - t0 })
                    do {
                        try video.path.process(item.packet, time: time, mux: mux)
                    } catch {
                        failure = error
                        break loop
                    }
                    if video.path.done, let frames = request.frames, video.path.written >= frames {
                        stopReason = "frames"
                    }
                    if video.path.done { alignAudioEnd() }
                } else if let audio, lane == audio.lane {
                    do {
                        try audio.path.process(item.packet, time: time, mux: mux)
                    } catch {
                        failure = error
                        break loop
                    }
                }
            case .ended(let lane, let error):
                endedLanes.insert(lane)
                if let error, stoppingSince == nil {
                    failure = error
                    stopReason = "error"
                    break loop
                }
            case .idle:
                break
            }

            // Housekeeping, at most a few times a second.
            let after = SessionClock.now()
            if stoppingSince == nil,
                let stalled = stalledLane(
                    now: after, startedAt: startedAt, loopStart: loopStart, endedLanes: endedLanes)
            {
                failure = .io(
                    subject: stalled.device,
                    reason:
                        "\(stalled.lacking) for \(Self.seconds(request.stallTimeout)) s; the device stalled. "
                        + (output?.headerWritten ?? streamStarted
                            ? "The file is finalized up to there" : "Nothing was recorded; no file was written")
                )
                stopReason = "error"
                break loop
            }
            // Twice a second, with the muxer options' half-second fragments: after kill -9 at 5 s,
            // 4 s must decode although start-up and the encoder's delay take their share too.
            if after - lastFlush >= 500_000 {
                lastFlush = after
                if let lost = streamEvents() {
                    failure = lost
                    stopReason = "error"
                    break loop
                }
                do { try output?.flush() } catch {
                    failure = writeError(error)
                    break loop
                }
            }
            if let onProgress, after - lastProgress >= 250_000 {
                let frames = video?.path.written ?? 0
                let span = Double(after - progressFrames.time) / 1e6
                let fps = span > 0 ? Double(frames - progressFrames.frames) / span : 0
                if after - progressFrames.time >= 1_000_000 { progressFrames = (after, frames) }
                lastProgress = after
                let elapsed = Double(after - t0) / 1e6
                let bytes = output?.bytesWritten ?? streams.reduce(0) { $0 + $1.bytesSent }
                onProgress(
                    RecordingProgress(
                        elapsed: elapsed, frames: frames, fps: fps, dropped: video?.path.droppedTotal ?? 0,
                        bytes: bytes,
                        bitRate: elapsed > 0 ? Double(bytes) * 8 / elapsed : 0))
            }
        }
        if failure == nil && stoppingSince == nil {
            if request.frames != nil && video?.path.done == true {
                stopReason = "frames"
            } else if request.duration != nil
                && [video?.path.done, audio?.path.done].allSatisfy({ $0 ?? true })
                && endedLanes.count < readers.count
            {
                stopReason = "duration"
            }
        }
        // Stop the readers and drop what they still queue, then finalize. Frames the queue dropped
        // after the last one taken still count, if they fall within the recording.
        alignAudioEnd()
        stop.interrupt.raise()
        queue.close()
        if let video { video.path.noteDropped(times: queue.takeDropped(lane: video.lane).map { $0 - t0 }) }
        return try finalize(failure: failure, stopReason: stopReason, t0: t0)
    }

    /// Ends the audio where the video ends, for every stop reason: the end of its last frame once
    /// it is done, else the end it was given (a camera silent since the stop).
    private func alignAudioEnd() {
        guard let video, let audio, audio.path.endTime == nil, video.path.done || video.path.endTime != nil
        else { return }
        audio.path.endTime = video.path.endOfLastFrame ?? video.path.endTime
    }

    /// True when every stream has recorded all it should.
    private func allDone(endedLanes: Set<Int>) -> Bool {
        let videoDone = video.map { $0.path.done || endedLanes.contains($0.lane) } ?? true
        let audioDone = audio.map { $0.path.done || endedLanes.contains($0.lane) } ?? true
        return videoDone && audioDone
    }

    /// The device name of a live input silent or useless for longer than the stall timeout, if
    /// any, and what it did not send.
    ///
    /// - Parameters:
    ///   - startedAt: when the readers started; `loopStart`: when every device had delivered.
    private func stalledLane(now: Int64, startedAt: Int64, loopStart: Int64, endedLanes: Set<Int>) -> (
        device: String, lacking: String
    )? {
        let limit = Int64(request.stallTimeout * 1e6)
        for entry in [video.map { ($0.lane, $0.source) }, audio.map { ($0.lane, $0.source) }].compactMap({ $0 })
        where entry.1.live && !endedLanes.contains(entry.0) {
            let last = queue.lastArrival(lane: entry.0) ?? startedAt
            if now - last > limit { return (entry.1.device.name, "no data") }
        }
        // A camera that keeps sending only what cannot be recorded (damaged frames, frames whose
        // times fall outside the recording) is as stalled as a silent one.
        if let video, video.source.live, !video.path.done, !endedLanes.contains(video.lane),
            now - (video.path.lastUsableAt ?? loopStart) > limit
        {
            return (video.source.device.name, "no usable frame")
        }
        return nil
    }

    /// How long after the readers start (microseconds) a late device may hold back the start.
    static let lateStartAllowance: Int64 = 300_000

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))" : String(format: "%.1f", value)
    }
}
