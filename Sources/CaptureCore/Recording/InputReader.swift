import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Reads one input on its own thread: blocking reads, each packet stamped on the session clock
/// and handed to the packet queue.
///
/// The reader lets go of its input in `close()`, once the thread has ended. A V4L2 packet maps
/// one of the driver's buffers and gives it back through the input when it is freed; such a packet
/// holds the input open itself (`DeviceBufferLease`), so the device closes when the reader and the
/// last of its packets are gone, in whichever order that happens.
final class InputReader: @unchecked Sendable {
    private var input: InputContainer?
    private let streamIndex: Int
    private let lane: Int
    private let queue: PacketQueue
    private let interrupt: InterruptFlag
    private var mapper: TimestampMapper
    private let timeBase: Rational
    private let source: InputSource
    private let done = DispatchSemaphore(value: 0)

    init(
        input: InputContainer, stream: Int, source: InputSource, lane: Int, queue: PacketQueue,
        interrupt: InterruptFlag
    ) {
        self.input = input
        self.streamIndex = stream
        self.source = source
        self.lane = lane
        self.queue = queue
        self.interrupt = interrupt
        self.mapper = TimestampMapper(domain: source.clock, origin: source.live ? nil : queue.origin)
        self.timeBase = input.info(of: stream).timeBase
    }

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

    /// The clock the device's timestamps turned out to use, once the first packet was read.
    var clockDomain: TimestampMapper.Domain? { mapper.domain }

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
        guard let input else { return }
        var coalescer = Self.coalescer(for: input, stream: streamIndex)
        // The last, incomplete block goes before the end: the loop takes nothing after it.
        func pushRest() { if let rest = coalescer?.flush() { queue.push(rest, lane: lane) } }
        while !interrupt.isRaised {
            let packet: Packet
            do {
                packet = try Packet()
                guard try input.read(into: packet) else {
                    pushRest()
                    queue.end(lane: lane, error: nil)
                    return
                }
            } catch {
                if interrupt.isRaised { break }
                queue.end(lane: lane, error: readError(error))
                return
            }
            guard packet.streamIndex == streamIndex else { continue }
            let arrival = SessionClock.now()
            // Rescaled with 128-bit intermediates: wall-clock microseconds times a numerator overflow.
            let pts = packet.pts.map { Rescale.rescale($0, from: timeBase, to: Rescale.microsecond) }
            let time = mapper.sessionTime(pts: pts, arrival: arrival, wallOffset: SessionClock.wallClockOffset())
            let item = QueuedPacket(packet: packet, time: time)
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

    /// A coalescer for a PCM audio stream; nil for anything else.
    private static func coalescer(for input: InputContainer, stream: Int) -> PCMCoalescer? {
        guard let layout = input.pcmLayout(of: stream) else { return nil }
        return PCMCoalescer(frameBytes: layout.frameBytes, sampleRate: layout.sampleRate)
    }

    private func readError(_ error: FFmpegError) -> CaptureError {
        let name = source.device.name
        switch error.errno {
        case ENODEV?, ENXIO?:
            return .io(
                subject: name,
                reason: "the device was lost (unplugged or disconnected); the file is finalized up to there")
        default:
            return .io(subject: name, reason: "reading the device failed: \(error)")
        }
    }
}
