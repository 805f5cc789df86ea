import FoundationEssentials
import Glibc

/// Carries out a `RecordingPlan`: opens the devices and the output, records, finalizes.
///
/// Each input gets a `Track`: its lane in the packet queue, a reader thread that stamps its
/// packets on the session clock, and the chain that takes them to the muxer. The thread calling
/// `run` owns the encoders and the muxer and takes the packets in time order (`RecordingLoop`).
/// The output file is created only when the first packet is ready to be written, so a recording
/// that fails earlier leaves no file; once created, it is always finalized (trailer written),
/// whatever ends the recording.
///
/// One session records once. Not thread-safe: call `run` from one thread; stop it from any
/// thread or a signal handler through its `StopSignal`.
public final class RecordingSession {
    public let plan: RecordingPlan
    let stop: StopSignal
    /// Called with one line for each warning (an odd frame size scaled, an option ignored).
    public var onWarning: (String) -> Void = { _ in }
    /// Called at most four times a second while recording.
    public var onProgress: ((RecordingProgress) -> Void)?
    /// Called on the recording's thread as segments open, close and are deleted
    /// (`RecordingPlan.segments`), and as a device is lost and back (`RecordingPlan.deviceReconnect`).
    public var onEvent: ((RecordingEvent) -> Void)?

    let queue = PacketQueue()
    /// The inputs, each with its reader, lane and chain, in the order they were opened.
    var tracks: [Track] = []
    /// Where the packets go: the file or the series of files, and the network streams. Nothing
    /// is on disk before the first packet (`RecordingOutput.write`).
    let outputs: OutputTee
    /// Set by `run`: a session records once.
    private var ran = false
    /// The controls `applyControls` set, kept for the summary and the restore.
    var appliedControls: AppliedControls?
    /// What `applyControls` wrote on a camera that was lost and has not come back.
    var lostCameraControls: ControlReport?
    /// SIGUSR1 and standard input, with event clips; nil without.
    let clipTriggers: ClipTriggers?
    /// The preview server (`RecordingPlan.preview`), listening from `init` on and serving from
    /// `run` until the recording has ended; nil without one.
    public let preview: PreviewServer?

    /// Prepares the outputs' muxers (`avformat_alloc_output_context2`); no device opens, no file
    /// is created and no stream connects yet.
    ///
    /// - Parameters:
    ///   - plan: what to record (`RecordingPlanner`).
    ///   - stop: raised by a signal handler or by code to end the recording cleanly.
    /// With a preview, its address is taken here (`PreviewServer.init`), before any device opens.
    ///
    /// - Throws: `.failed` when FFmpeg has no such muxer; the preview server's errors
    ///   (`.cannotListen`, 73; `.usage`, 64, for an address beyond loopback without a token).
    public init(plan: RecordingPlan, stop: StopSignal) throws(CaptureError) {
        self.plan = plan
        self.stop = stop
        if let settings = plan.preview { preview = try PreviewServer(settings: settings) } else { preview = nil }
        outputs = try OutputFactory.outputs(for: plan)
        clipTriggers = plan.clips.map { ClipTriggers(standardInput: $0.fromStandardInput) }
    }

    /// True once the first packet reached the outputs: the file's header is written, or a
    /// stream-only recording sent its first packet.
    var started: Bool { outputs.started }

    /// Records until the duration, the frame limit, the end of the inputs, a stop request, or an
    /// error.
    ///
    /// - Returns: `.recorded` with the summary (its `failure` is set when an error ended a
    ///   recording whose file was already written: it is finalized up to there, exit 74), or
    ///   `.stoppedBeforeFirstFrame` when the stop came before anything was written: no file exists.
    /// - Throws: `CaptureError` for anything that fails before the first packet is written; no
    ///   file is left behind then. `.failed` when the session has run before.
    public func run() throws(CaptureError) -> RecordingOutcome {
        // Its devices are closed and its output finished: a second recording needs a new session.
        guard !ran else { throw .failed("\(plan.output): this session has recorded already; make a new one") }
        ran = true
        defer { tearDown() }
        startPreview()
        do {
            try open()
            let outcome = try RecordingLoop(session: self).run()
            if case .recorded(let result) = outcome { finishPreview(result.summary) }
            return outcome
        } catch {
            // A stop during start-up interrupts FFmpeg's opens and reads with errors of their own;
            // before the file exists, that is a stop with nothing recorded, not a failure.
            if stop.isRequested && !started { return stoppedBeforeFirstFrame }
            throw error
        }
    }

    /// The outcome of a stop that came before anything was written.
    var stoppedBeforeFirstFrame: RecordingOutcome {
        .stoppedBeforeFirstFrame(signal: stop.signal != 0 ? StopSignal.name(of: stop.signal) : nil)
    }

    /// Stops the readers and closes the devices. Packets still queued or held by a decoder are
    /// freed first so the devices close here rather than whenever those go; a packet that maps a
    /// device buffer would keep its device open anyway (`DeviceBufferLease`).
    private func tearDown() {
        stop.interrupt.raise()
        queue.close()
        let readers = tracks.map(\.reader)
        for reader in readers { reader.wait(seconds: 1) }
        tracks = []
        // A reader still blocked in a read (a stalled device) keeps its input; exiting frees it.
        for reader in readers { reader.close() }
        outputs.close(timeout: 1)
        restoreControls()
        preview?.stop()
    }

    /// Sets the camera's controls and opens each device with its chain.
    private func open() throws(CaptureError) {
        try applyControls()
        // Each track joins as soon as it is open, so a later one that fails still has the
        // earlier ones' devices closed by `tearDown`.
        let choices = try chooseEncoders()
        for (video, choice) in zip(plan.videos, choices) { tracks.append(try openVideo(video, choice: choice)) }
        let outputs = outputs
        let cameras = tracks.cameras
        let grid = FrameGrid()
        for camera in cameras {
            guard let path = camera.video else { continue }
            path.grid = grid
            let stream = path.stream
            path.cutPoint = { (time) throws(CaptureError) in try outputs.wantsKeyframe(at: time, stream: stream) }
        }
        if !cameras.isEmpty {
            // A camera's own H.264, copied, has keyframes only where the camera put them.
            outputs.videoKeyframes(
                anywhere: cameras.allSatisfy { $0.video?.copies == false || $0.input.isIntraOnly })
        }
        for audio in plan.audios { tracks.append(try openAudio(audio)) }
        connectPreview()
        // Streams connect before any file exists: a server that cannot be reached leaves none.
        try outputs.connect(stop: stop.interrupt)
    }

    /// A reader for `input`'s stream `index` on a new lane of the queue.
    func makeReader(
        _ input: InputContainer, stream index: Int, source: InputSource, lane: Int, follower: SourceFollower? = nil
    ) -> InputReader {
        InputReader(
            input: input, stream: index, source: source, lane: lane, queue: queue, interrupt: stop.interrupt,
            reconnect: plan.deviceReconnect, follower: follower)
    }

    /// What `RecordingLoop.reportLinks` keeps between calls: the gap count when a device was
    /// lost, a camera's return not told yet (seconds away, frames written by then), and the
    /// frames each camera missed while away, over all its returns.
    struct LinkReports {
        var gapsAtLoss: [Int: Int] = [:]
        var pendingBack: [Int: (Double, Int)] = [:]
        var missingWhileAway: [Int: Int] = [:]
    }
    var linkReports = LinkReports()

    /// The reader of `lane`.
    func reader(lane: Int) -> InputReader? { tracks.track(lane: lane)?.reader }

    /// Gives a packet to every output; the file is created and its header written on the first.
    func mux(_ packet: Packet, stream: Int) throws(CaptureError) {
        try outputs.write(packet, stream: stream)
    }

    /// Passes the outputs' news (segments opened, closed and deleted; a stream lost, back, ended)
    /// to `onEvent` and `onWarning`.
    ///
    /// - Returns: the error that ends a recording with no file once every stream is lost for good
    ///   (exit 74); nil otherwise.
    func reportOutputs() -> CaptureError? {
        let news = outputs.takeNews()
        for event in news.events { onEvent?(event) }
        for line in news.warnings { onWarning(line) }
        return outputs.allLost
    }

    /// Passes the microphones' level news (`audio_level` events, silence warnings) on.
    func reportLevels() {
        for audio in tracks.compactMap(\.audio) {
            let news = audio.meter.takeNews()
            for event in news.events { onEvent?(event) }
            for line in news.warnings { onWarning(line) }
        }
    }
}

/// How a session ended.
public enum RecordingOutcome: Sendable {
    /// A file was written: its summary, and the error that ended it early if any.
    case recorded(RecordingResult)
    /// A stop came before the first frame or sample was written: no file exists. `signal` names
    /// the signal (`SIGINT`), nil for a stop requested by code.
    case stoppedBeforeFirstFrame(signal: String?)
}
