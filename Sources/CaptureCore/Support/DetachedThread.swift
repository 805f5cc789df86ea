internal import CShim
import Glibc

/// Starts a thread of its own for blocking work (`pthread_create`, then `pthread_detach`), in
/// place of full Foundation's `Thread`.
enum DetachedThread {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread with the default stack and returns at once.
    ///
    /// - Parameter name: shown by `ps -L` and `top -H` (`pthread_setname_np`); the kernel keeps
    ///   its first 15 bytes.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
                work.body()
                return nil
            }, work)
        // Only a process out of memory or threads gets here; there is nothing to fall back on.
        precondition(status == 0, "pthread_create failed: \(String(cString: strerror(status)))")
        // Whole characters only: the kernel refuses a longer name, and a cut byte sequence is no text.
        var short = ""
        for scalar in name.unicodeScalars {
            guard short.utf8.count + String(scalar).utf8.count <= 15 else { break }
            short.unicodeScalars.append(scalar)
        }
        CShim_set_thread_name(thread, short)
        pthread_detach(thread)
    }
}
