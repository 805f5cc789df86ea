import FoundationEssentials
import Glibc

/// A mutex with a condition variable (`pthread_mutex_t`, `pthread_cond_t`), in place of full
/// Foundation's `NSCondition`: the same calls, so the packet queue reads the same.
///
/// Thread-safe. The waits must be called with the lock held (inside `withLock`); they release it
/// while they sleep and hold it again when they return.
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Takes the mutex (`pthread_mutex_lock`), for a wait loop that unlocks it itself.
    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Sleeps until signalled (`pthread_cond_wait`); a wake-up may be spurious.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Sleeps until signalled or until `deadline`, a wall-clock time (`pthread_cond_timedwait` on
    /// `CLOCK_REALTIME`).
    ///
    /// - Returns: false when the deadline passed; true when woken, which may be spurious.
    func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSince1970.rounded(.down)
        let nanoseconds = (deadline.timeIntervalSince1970 - seconds) * 1e9
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    func signal() { pthread_cond_signal(condition) }

    func broadcast() { pthread_cond_broadcast(condition) }
}
