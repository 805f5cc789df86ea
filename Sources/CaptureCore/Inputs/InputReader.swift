import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Reads one input on its own thread: blocking reads, each packet stamped on the session clock
/// and handed to the packet queue.
///
/// With `reconnect`, a device lost in a read (ENODEV, ENXIO, EIO) does not end the lane: the
/// reader lets go of it, tries to open the same device again every half second (a camera must
/// report the card and bus it had, so another camera that took the node is not recorded), and
/// reads on from the new input on the same lane; `link` tells the loop. The session clock runs on
/// meanwhile, so the gap is missing frames and, in the audio path, silence.
///
/// A camera's read that fails with EIO while the camera is still there is tried again in place,
/// after a short pause (`ReadRetry`): the recording goes on, and the frames lost meanwhile are gaps
/// in the timestamps. A camera whose reads keep failing sends nothing, and the loop's stall watch
/// ends it (or, with `reconnect`, has it let go of and opened again) as it does a silent one.
///
/// The reader lets go of its input in `close()`, once the thread has ended. A V4L2 packet maps
/// one of the driver's buffers and gives it back through the input when it is freed; such a packet
/// holds the input open itself (`DeviceBufferLease`), so the device closes when the reader and the
/// last of its packets are gone, in whichever order that happens.
final class InputReader: @unchecked Sendable {
    private var input: InputContainer?
    private let streamIndex: Int
    let lane: Int
    private let queue: PacketQueue
    private let interrupt: InterruptFlag
    private var mapper: TimestampMapper
    private let timeBase: Rational
    let source: InputSource
    private let done = DispatchSemaphore(value: 0)
    /// How a lost device is waited for; nil: a lost device ends the lane with an error.
    private let reconnect: RecordingPlan.DeviceReconnect?
    /// The device's losses and returns, for the loop.
    let link = DeviceLink()
    /// The signal on the camera's HDMI input when it was opened (`InputContainer.signal`).
    private var signal: SignalTimings?
    /// What the camera's source did that failed the last read (`InputContainer.sourceChange`).
    private var sourceChange: SourceChange?
    /// Follows a source that changes mode, or says why not; nil: a change ends the lane.
    let follower: SourceFollower?
    /// The source as opened last (at its latest mode), and how often it changed mode.
    private var reading: InputSource, generation = 0

    init(
        input: InputContainer, stream: Int, source: InputSource, lane: Int, queue: PacketQueue,
        interrupt: InterruptFlag, reconnect: RecordingPlan.DeviceReconnect? = nil, follower: SourceFollower? = nil
    ) {
        self.follower = input.signal == nil ? nil : follower
        self.reading = source
        self.reconnect = source.live ? reconnect : nil
        self.input = input
        self.streamIndex = stream
        self.source = source
        self.lane = lane
        self.queue = queue
        self.interrupt = interrupt
        self.mapper = TimestampMapper(domain: source.clock, origin: source.live ? nil : queue.origin)
        self.timeBase = input.info(of: stream).timeBase
        self.signal = input.signal
    }

    /// The device's name for messages.
    var name: String { source.device.name }

    /// Starts the reader thread.
    func start() {
        started = true
        DetachedThread.start(name: "capture reader \(source.device.name)") { [self] in run() }
    }

    /// Waits up to `seconds` for the thread to end and close its device.
    ///
    /// - Returns: false when it is still blocked in a read (a stalled device).
    @discardableResult
    func wait(seconds: Double) -> Bool {
        guard started else { return true }
        if finished.withLock({ $0 }) { return true }
        return done.wait(timeout: .now() + seconds) == .success
    }

    private var started = false

    /// Lets go of the input once the thread has ended; the device closes (`avformat_close_input`)
    /// now, or when the last packet still pointing into its buffers is freed.
    ///
    /// - Returns: false when the thread is still blocked in a read; the input stays open then.
    @discardableResult
    func close() -> Bool {
        guard !started || finished.withLock({ $0 }) else { return false }
        input = nil
        return true
    }

    private let finished = Mutex(false)

    private func run() {
        defer {
            finished.withLock { $0 = true }
            done.signal()
        }
        // Nil only while a lost device is waited for.
        guard input != nil else { return }
        var current: InputContainer? = input
        var coalescer = Self.coalescer(for: current!, stream: streamIndex)
        // The last, incomplete block goes before the end: the loop takes nothing after it.
        func pushRest() { if let rest = coalescer?.flush() { queue.push(rest, lane: lane) } }
        while !interrupt.isRaised {
            let packet: Packet
            do {
                packet = try Packet()
                guard try current!.read(into: packet) else {
                    pushRest()
                    queue.end(lane: lane, error: nil)
                    return
                }
            } catch {
                if interrupt.isRaised { break }
                sourceChange = current!.sourceChange
                if retriesInPlace(error) { continue }
                // What was read before the error goes into the file too: the last, incomplete block
                // of a microphone's samples included.
                pushRest()
                guard let reopened = recover(from: error, current: &current) else { return }
                coalescer = Self.coalescer(for: reopened, stream: streamIndex)
                continue
            }
            guard packet.streamIndex == streamIndex else { continue }
            if current!.numbersBuffers { numbered.withLock { $0 = true } }
            let item = stamped(packet)
            if coalescer != nil {
                do {
                    for block in try coalescer!.add(item) { queue.push(block, lane: lane) }
                } catch {
                    queue.end(lane: lane, error: .failed("\(source.device.name): \(error)"))
                    return
                }
            } else {
                queue.push(item, lane: lane)
            }
        }
        pushRest()
        queue.end(lane: lane, error: nil)
    }

    /// After a read failed for good: a source that changed mode is followed (`follower`); with
    /// `--reconnect` a lost device is waited for and opened again; otherwise the lane ends with
    /// the error.
    ///
    /// - Parameter current: the reader's input, let go of before the wait (the packets still
    ///   queued hold the old input open; it closes as they go), the new one after.
    /// - Returns: the input opened again, or nil when the lane has ended.
    private func recover(from error: FFmpegError, current: inout InputContainer?) -> InputContainer? {
        if case .changed(let from, let to)? = sourceChange, let follower, follower.refusal == nil {
            input = nil
            let outcome = follower.reopen(
                .init(from: from, to: to), old: &current, source: reading, signal: signal, stream: streamIndex,
                generation: generation + 1, interrupt: interrupt)
            guard case .success(let reopened) = outcome else {
                if case .failure(let why) = outcome {
                    queue.end(lane: lane, error: Self.notFollowed(name, from, to, why))
                }
                return nil
            }
            (generation, reading, signal, sourceChange) = (generation + 1, reopened.source, reopened.input.signal, nil)
            (input, current) = (reopened.input, reopened.input)
            return reopened.input
        }
        guard let reconnect, let reason = lossReason(error) else {
            queue.end(lane: lane, error: readError(error))
            return nil
        }
        failedReads.withLock { $0.current = nil }
        input = nil
        current = nil
        switch waitForReturn(reconnect, reason: reason) {
        case .back(let reopened):
            // An HDMI source back with another mode than the one recorded is a source change,
            // followed as one (below, where nothing here holds the camera) when segments follow.
            if let before = signal, let now = reopened.signal, now != before {
                sourceChange = .changed(from: before.description, to: now.description)
                current = reopened
                break
            }
            input = reopened
            current = reopened
            return reopened
        case .stopped:
            queue.end(lane: lane, error: nil)
            return nil
        case .gaveUp(let error):
            queue.end(lane: lane, error: error)
            return nil
        }
        return recover(from: error, current: &current)
    }

    /// A packet read from the device, stamped with its arrival and its time on the session
    /// clock; a run of failed reads, or a stalled read, ends with it.
    private func stamped(_ packet: Packet) -> QueuedPacket {
        let arrival = SessionClock.now()
        failedReads.withLock { reads in
            if let run = reads.current { reads.recovered.append(run) }
            reads.current = nil
        }
        // A stalled read that ends with data: the device is back without being reopened.
        if link.waiting,
            stall.withLock({ value -> Bool in
                guard value?.freed == false else { return false }
                value = nil
                return true
            })
        {
            link.back(at: arrival)
        }
        // Rescaled with 128-bit intermediates: wall-clock microseconds times a numerator overflow.
        let pts = packet.pts.map { Rescale.rescale($0, from: timeBase, to: Rescale.microsecond) }
        let time = mapper.sessionTime(pts: pts, arrival: arrival, wallOffset: SessionClock.wallClockOffset())
        return QueuedPacket(packet: packet, time: time, arrival: arrival, generation: generation)
    }

    private enum Return {
        case back(InputContainer)
        /// A stop came while waiting.
        case stopped
        case gaveUp(CaptureError)
    }

    /// Waits for the lost device to come back: tries to open it again every half second until it
    /// opens, a stop comes, or the reconnect timeout passes.
    private func waitForReturn(_ reconnect: RecordingPlan.DeviceReconnect, reason: String) -> Return {
        link.lose(at: SessionClock.now(), reason: reason)
        // A stall counts from when it was found, not from when its read gave up.
        let lostAt = link.lostAt ?? SessionClock.now()
        var reopening = reading
        let camera = source.device.v4l2
        if let camera { reopening.url = camera.stablePath ?? camera.path }
        while !interrupt.isRaised {
            if let timeout = reconnect.timeout, SessionClock.now() - lostAt >= Int64(timeout * 1e6) {
                return .gaveUp(Self.gaveUp(device: source.device.name, reason: reason, timeout: timeout))
            }
            let next = SessionClock.now() + Self.retryInterval
            while !interrupt.isRaised && SessionClock.now() < next { usleep(50_000) }
            if interrupt.isRaised { break }
            // A camera at the same path must be the same one: same card, same bus.
            if let camera {
                guard let now = V4L2Discovery.cardAndBus(path: reopening.url), now.card == camera.card,
                    now.busInfo == camera.busInfo
                else { continue }
            }
            if let reopened = try? reopening.open(interrupt: interrupt) {
                link.back(at: SessionClock.now())
                queue.touch(lane: lane)
                return .back(reopened)
            }
        }
        return .stopped
    }

    /// Pauses and reports true when `error` is a camera's read failing for a moment
    /// (`ReadRetry.isTransient`): the caller reads again. False once the loop has found the
    /// lane stalled and let go of its read: the failure is then the stall's.
    private func retriesInPlace(_ error: FFmpegError) -> Bool {
        guard stall.withLock({ $0 == nil }), ReadRetry.isTransient(error, device: source.device) else { return false }
        let now = SessionClock.now()
        failedReads.withLock { reads in
            if reads.current == nil {
                reads.current = ReadRetry(at: now, error: error)
            } else {
                reads.current!.add(at: now)
            }
        }
        usleep(ReadRetry.pause)
        return true
    }

    private let numbered = Mutex(false)

    /// True once the device has shown that it numbers its buffers (`InputContainer.numbersBuffers`):
    /// its packets' `Packet.framesLostBefore` then count the frames it lost, which the recording
    /// loop adds up within the recording. False for a camera read through FFmpeg. Any thread.
    var numbersBuffers: Bool { numbered.withLock { $0 } }

    /// The run of failed reads going on, and the runs that ended since the loop last asked.
    private let failedReads = Mutex<(current: ReadRetry?, recovered: [ReadRetry])>((nil, []))

    /// The run of reads failing now, if one is; the loop's stall watch names it.
    var failingReads: ReadRetry? { failedReads.withLock { $0.current } }

    /// The runs of failed reads that ended with a good read since the last call, oldest first.
    func takeRecoveredReads() -> [ReadRetry] {
        failedReads.withLock { reads in
            defer { reads.recovered.removeAll() }
            return reads.recovered
        }
    }

    /// Microseconds between attempts to open a lost device again.
    static let retryInterval: Int64 = 500_000

    /// Counts a stalled device as lost, with `--reconnect`, and frees its reader where it can.
    /// Called from the loop's thread.
    ///
    /// A camera's streaming is stopped (`V4L2Handle.stopStreaming`): the read blocked in the
    /// driver fails, and the reader waits for the camera as for a loss, with `reason`. Nothing
    /// outside FFmpeg can wake a read blocked in ALSA or PulseAudio, so a stalled microphone's
    /// read is left to end by itself: with data (the device is back, the gap is silence) or with
    /// an error (ALSA's own ten-second timeout, a sound server that went away), after which the
    /// device is opened again. Meanwhile the lane counts as lost, the other devices record on,
    /// and `overdue(now:)` ends the recording once the reconnect timeout passes.
    ///
    /// - Returns: false without `--reconnect`, or when the device already counts as lost: the
    ///   stall then ends the recording.
    func freeStalled(reason: String) -> Bool {
        guard reconnect != nil, !link.waiting else { return false }
        stall.withLock { $0 = Stall(reason: reason, freed: false) }
        // Waited for from now: no second stall while the reader lets go.
        link.lose(at: SessionClock.now(), reason: reason)
        if let camera = source.device.v4l2, V4L2Handle.stopStreaming(path: camera.path) {
            stall.withLock { $0?.freed = true }
        }
        return true
    }

    /// A stall found by the loop, until the reader's read ends; `freed`: its read was made to fail.
    private struct Stall {
        var reason: String
        var freed: Bool
    }
    private let stall = Mutex<Stall?>(nil)

    /// The error that ends the recording when this device has been lost for longer than the
    /// reconnect timeout while its reader is still blocked in a read (a stall nothing could
    /// free); nil otherwise. A reader that waits in `waitForReturn` gives up by itself.
    func overdue(now: Int64) -> CaptureError? {
        guard let timeout = reconnect?.timeout, let blocked = stall.withLock({ $0 }), !blocked.freed,
            let lostAt = link.lostAt, now - lostAt >= Int64(timeout * 1e6)
        else { return nil }
        return Self.gaveUp(device: source.device.name, reason: blocked.reason, timeout: timeout)
    }

    /// Why a read failure means the device went away, in a few words; nil for other failures.
    ///
    /// A camera whose driver is unbound while a read waits fails that read with EINVAL (its
    /// buffers' stream was stopped under it), not ENODEV; its node is gone by then, which tells
    /// such a loss from a real refusal. Any failure of a microphone counts: reopening it is how
    /// a sound server that restarted (PulseAudio's "Generic error in an external library") is
    /// found again.
    private func lossReason(_ error: FFmpegError) -> String? {
        if let reason = stall.withLock({ value -> String? in
            defer { value = nil }
            return value?.reason
        }) {
            return reason
        }
        switch sourceChange {
        case .signalLost(let why): return "its input signal was lost: \(why)"
        case .changed: return nil
        case nil: break
        }
        switch error.errno {
        case .noSuchDevice, .noSuchDeviceOrAddress: return "unplugged or disconnected"
        case .ioError: return cameraNodeGone ? "unplugged or disconnected" : "input/output error"
        default:
            if cameraNodeGone { return "unplugged or disconnected" }
            guard source.device.v4l2 == nil else { return nil }
            return source.device.api == .pulse ? "the sound server's stream failed: \(error)" : "\(error)"
        }
    }

    /// True for a camera whose node cannot be opened and queried any more.
    private var cameraNodeGone: Bool {
        guard let camera = source.device.v4l2 else { return false }
        return V4L2Discovery.cardAndBus(path: camera.path) == nil
    }

    private func readError(_ error: FFmpegError) -> CaptureError {
        let name = source.device.name
        switch sourceChange {
        case .changed(let from, let to):
            let why = follower?.refusal.map { " (\($0))" } ?? ""
            return .io(
                subject: name,
                reason: "its source changed from \(from) to \(to); the file is finalized up to there\(why). "
                    + "Record again to take the new mode")
        case .signalLost(let why):
            return .io(subject: name, reason: "its input signal was lost (\(why)); the file is finalized up to there")
        case nil: break
        }
        // A camera unbound mid-read fails with EINVAL; its node is gone then (`lossReason`).
        if error.errno == .noSuchDevice || error.errno == .noSuchDeviceOrAddress || cameraNodeGone {
            return .io(
                subject: name,
                reason: "the device was lost (unplugged or disconnected); the file is finalized up to there")
        }
        return .io(subject: name, reason: "reading the device failed: \(error)")
    }
}
