import Glibc

/// A string each thread has its own copy of (`pthread_key_create`), in place of full Foundation's
/// `Thread.current.threadDictionary`. A thread's copy is freed when the thread ends.
///
/// Thread-safe: each thread reads and writes only its own copy.
final class ThreadLocalText: @unchecked Sendable {
    private final class Box {
        let text: String
        init(_ text: String) { self.text = text }
    }

    private var key = pthread_key_t()

    init() {
        pthread_key_create(&key) { value in
            if let value { Unmanaged<Box>.fromOpaque(value).release() }
        }
    }

    /// The calling thread's copy; nil until it sets one.
    var value: String? {
        get {
            pthread_getspecific(key).map { Unmanaged<Box>.fromOpaque($0).takeUnretainedValue().text }
        }
        set {
            let old = pthread_getspecific(key)
            pthread_setspecific(key, newValue.map { Unmanaged.passRetained(Box($0)).toOpaque() })
            if let old { Unmanaged<Box>.fromOpaque(old).release() }
        }
    }
}
