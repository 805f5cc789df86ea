internal import CFFmpeg
import FoundationEssentials
import Glibc
import Synchronization

/// A time limit on whatever FFmpeg is blocked in on a network connection (`AVIOInterruptCB`):
/// connecting, the RTMP handshake, a write the peer does not take. FFmpeg's TCP, TLS and SRT
/// protocols poll the callback while they wait, so one callback bounds them all, whatever
/// timeout options each protocol has of its own.
///
/// Thread-safe: armed and polled on the writer thread, aborted from any thread.
final class NetworkDeadline: Sendable {
    /// The CLOCK_MONOTONIC time in microseconds after which calls fail; 0: no limit.
    private let deadline = Atomic<Int64>(0)
    private let aborted = Atomic<Bool>(false)
    /// Set when a call was failed because the limit passed; cleared by `arm`.
    private let expired = Atomic<Bool>(false)
    /// A stop that ends the waiting as well, while set (`linking`).
    private let stop = Mutex<InterruptFlag?>(nil)

    init() {}

    /// Limits the next blocking calls to `seconds` from now.
    func arm(seconds: Double) {
        expired.store(false, ordering: .releasing)
        deadline.store(Self.now() + Int64(seconds * 1e6), ordering: .releasing)
    }

    /// Lifts the limit.
    func disarm() { deadline.store(0, ordering: .releasing) }

    /// Fails pending and later calls at once, for good (`AVERROR_EXIT`).
    func abort() { aborted.store(true, ordering: .releasing) }

    var isAborted: Bool { aborted.load(ordering: .acquiring) }

    /// True when a call that was blocked ended because the limit passed (not an abort).
    var hasExpired: Bool {
        let limit = deadline.load(ordering: .acquiring)
        return limit != 0 && Self.now() >= limit
    }

    /// True when the linked stop flag is raised.
    var isStopped: Bool { stop.withLock { $0?.isRaised ?? false } }

    /// True when the limit armed last failed a call. A protocol may report that failure as
    /// something else (RTSP's reply read gives "Invalid data"), so the cause is asked here.
    var didExpire: Bool { expired.load(ordering: .acquiring) }

    /// Whether FFmpeg should give up now.
    var isRaised: Bool {
        if isAborted || isStopped { return true }
        guard hasExpired else { return false }
        expired.store(true, ordering: .releasing)
        return true
    }

    /// Runs `body` with `flag` ending the waiting as well: a Ctrl-C while a server is being
    /// reached need not wait for the timeout.
    func linking<T, E: Error>(_ flag: InterruptFlag, _ body: () throws(E) -> T) throws(E) -> T {
        stop.withLock { $0 = flag }
        defer { stop.withLock { $0 = nil } }
        return try body()
    }

    /// The callback for `AVFormatContext.interrupt_callback` and `avio_open2`. The deadline must
    /// outlive every context it is given to.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<NetworkDeadline>.fromOpaque(opaque).takeUnretainedValue().isRaised ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}
