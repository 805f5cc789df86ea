import Foundation

/// Reads one input on its own thread: blocking reads, each packet stamped on the session clock
/// and handed to the packet queue. The thread owns the input while it runs and closes the device
/// when it ends, so the device is free again as soon as reading stops.
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
        let thread = Thread { [self] in run() }
        thread.name = "capture reader \(source.device.name)"
        thread.start()
    }

    /// Waits up to `seconds` for the thread to end and close its device.
    ///
    /// - Returns: false when it is still blocked in a read (a stalled device).
    @discardableResult
    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    /// The clock the device's timestamps turned out to use, once the first packet was read.
    var clockDomain: TimestampMapper.Domain? { mapper.domain }

    private func run() {
        defer {
            input = nil
            done.signal()
        }
        guard let input else { return }
        while !interrupt.isRaised {
            let packet: Packet
            do {
                packet = try Packet()
                guard try input.read(into: packet) else {
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
            let pts = packet.pts.map {
                $0 * Int64(timeBase.numerator) * 1_000_000 / Int64(timeBase.denominator)
            }
            let time = mapper.sessionTime(pts: pts, arrival: arrival, wallOffset: SessionClock.wallClockOffset())
            queue.push(QueuedPacket(packet: packet, time: time), lane: lane)
        }
        queue.end(lane: lane, error: nil)
    }

    private func readError(_ error: FFmpegError) -> CaptureError {
        let name = source.device.name
        switch error.errno {
        case ENODEV?, ENXIO?:
            return .io(subject: name, reason: "the device was lost (unplugged or disconnected); the file is finalized up to there")
        default:
            return .io(subject: name, reason: "reading the device failed: \(error)")
        }
    }
}
