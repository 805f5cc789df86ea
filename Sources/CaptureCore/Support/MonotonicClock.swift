import FoundationEssentials
import Glibc

/// CLOCK_MONOTONIC, for timeouts and waits that a change of the wall clock must not stretch.
enum MonotonicClock {
    /// Microseconds since an arbitrary start (`clock_gettime(CLOCK_MONOTONIC)`).
    static func microseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}
