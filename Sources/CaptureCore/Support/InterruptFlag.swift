internal import CFFmpeg
import Glibc
import Synchronization

/// A flag that FFmpeg polls while it blocks in a demuxer or protocol (`AVIOInterruptCB`): once
/// set, or once its deadline has passed, pending and later calls on the container return
/// `AVERROR_EXIT`.
///
/// Thread-safe: set from a signal handler's queue, read by FFmpeg on a reader thread.
final class InterruptFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC microseconds after which FFmpeg is interrupted too; 0: none.
    private let deadline = Atomic<Int64>(0)

    init() {}

    var isRaised: Bool { raised.load(ordering: .acquiring) }

    func raise() { raised.store(true, ordering: .releasing) }

    /// Interrupts FFmpeg from `time` on (CLOCK_MONOTONIC microseconds, `SessionClock.now()`) as
    /// well, until `clearDeadline`; `isRaised` does not change.
    func setDeadline(_ time: Int64) { deadline.store(max(1, time), ordering: .releasing) }

    func clearDeadline() { deadline.store(0, ordering: .releasing) }

    /// True when the flag is raised or its deadline has passed.
    var interrupts: Bool {
        if isRaised { return true }
        let limit = deadline.load(ordering: .acquiring)
        return limit != 0 && Self.monotonicNow() >= limit
    }

    private static func monotonicNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// The callback for `AVFormatContext.interrupt_callback`. The flag must outlive the context.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().interrupts ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
