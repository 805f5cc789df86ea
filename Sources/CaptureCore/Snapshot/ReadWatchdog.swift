import FoundationEssentials
import Glibc
import Synchronization

/// Interrupts a blocking device read when a stop is requested or the device has sent nothing for
/// `timeout` seconds: a thread of its own checks both every 50 ms and raises `interrupt`, which
/// FFmpeg polls while it waits.
///
/// Thread-safe: `fed()` is called by the reading thread, the checks run on the watchdog's thread.
final class ReadWatchdog: Sendable {
    let interrupt = InterruptFlag()
    private let lastFed = Atomic<Int64>(0)
    private let stalledFlag = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let timeout: Double

    /// Starts watching at once; `stop` ends it.
    init(timeout: Double, stop: StopSignal) {
        self.timeout = timeout
        lastFed.store(Self.now(), ordering: .releasing)
        DetachedThread.start(name: "capture.watchdog") { [self] in
            while !finished.load(ordering: .acquiring) {
                if stop.isRequested { interrupt.raise() }
                if Double(Self.now() - lastFed.load(ordering: .acquiring)) / 1e6 > timeout {
                    stalledFlag.store(true, ordering: .releasing)
                    interrupt.raise()
                }
                usleep(50_000)
            }
        }
    }

    /// True once the device was declared stalled.
    var stalled: Bool { stalledFlag.load(ordering: .acquiring) }

    /// A packet arrived: the stall timer starts again.
    func fed() { lastFed.store(Self.now(), ordering: .releasing) }

    /// Ends the watching thread (within 50 ms).
    func finish() { finished.store(true, ordering: .releasing) }

    static func now() -> Int64 { MonotonicClock.microseconds() }
}
