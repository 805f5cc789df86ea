import FoundationEssentials
import Glibc

/// Routes what a C library writes straight to file descriptor 2 into ``LibraryLog``.
///
/// libpulse prints its own errors to stderr ("Failed to create secure directory" when `$HOME` is
/// unusable), and its `PULSE_LOG` setting can raise its log level but never lower it below
/// errors; without a public way to replace its log target, descriptor 2 is pointed at a
/// temporary file for the duration of the call and the lines are logged as warnings (shown with
/// verbose logging, never folded into our error messages).
enum StandardErrorRoute {
    /// Descriptor 2 belongs to the whole process: one route at a time. Recursive, since a routed
    /// ALSA lookup may open a routed libpulse connection; the inner route restores the outer one.
    private static let lock = RecursiveLock()

    /// Runs `body` with descriptor 2 redirected to an unlinked temporary file (`tmpfile`, `dup`,
    /// `dup2`), restores it, and logs each line written meanwhile. When the redirection cannot be
    /// set up, `body` runs with stderr as it is.
    static func routing<T>(_ body: () -> T) -> T {
        lock.withLock {
            flushOutputStreams()
            guard let file = tmpfile() else { return body() }
            defer { fclose(file) }
            let saved = dup(2)
            guard saved >= 0 else { return body() }
            guard dup2(fileno(file), 2) >= 0 else {
                close(saved)
                return body()
            }
            let result = body()
            flushOutputStreams()
            dup2(saved, 2)
            close(saved)
            for line in contents(of: fileno(file)).split(whereSeparator: \.isNewline) where !line.isEmpty {
                LibraryLog.shared.record(level: 24, line: String(line))  // AV_LOG_WARNING
            }
            return result
        }
    }

    private static func contents(of fd: Int32) -> String {
        guard lseek(fd, 0, SEEK_SET) == 0 else { return "" }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
