internal import CFFmpeg
internal import CShim
import FoundationEssentials
import Glibc
import Synchronization

/// Collects what FFmpeg and libasound log, so it never reaches the user raw: the last error line is
/// folded into our own error messages, and `verbose` echoes every line to stderr.
///
/// Thread-safe: FFmpeg logs from any thread (reader threads, encoder threads). The last error line
/// is kept per thread: the libraries log a failure on the thread whose call fails, so a reader's
/// error never ends up in the message of another thread's failure.
public final class LibraryLog: Sendable {
    /// The one log of the process; FFmpeg's and libasound's callbacks are process-wide too.
    public static let shared = LibraryLog()

    private let verbose = Mutex(false)
    /// The calling thread's last error line.
    private let lastError = ThreadLocalText()

    /// Text never to show (a stream URL's secrets) and what shows instead, longest first.
    private let hidden = Mutex<[(String, String)]>([])

    private init() {}

    /// From now on, `url` appears as `printable` in every line, and each of `secrets` (three
    /// characters or more) as `***`: FFmpeg's protocols log the URLs they open.
    public func hide(_ secrets: [String], in url: String, as printable: String) {
        hidden.withLock { list in
            list.append((url, printable))
            for secret in secrets where secret.count >= 3 { list.append((secret, "***")) }
            list.sort { $0.0.count > $1.0.count }
        }
    }

    /// Routes FFmpeg's log (`av_log_set_callback`) and libasound's (`snd_lib_error_set_handler`)
    /// here. Call once at start-up, before opening any device.
    ///
    /// - Parameter verbose: also print every line to stderr, as verbose logging asks.
    public func install(verbose: Bool) {
        self.verbose.withLock { $0 = verbose }
        // Without verbose logging, FFmpeg need not even format its informational lines.
        av_log_set_level(verbose ? AV_LOG_VERBOSE : AV_LOG_WARNING)
        CShim_install_av_log_sink { level, line in
            guard let line else { return }
            LibraryLog.shared.record(level: level, line: String(cString: line))
        }
        CShim_install_alsa_log_sink { level, line in
            guard let line else { return }
            LibraryLog.shared.record(level: level, line: String(cString: line))
        }
    }

    /// Records a line of capture's own at FFmpeg's verbose level: shown with verbose logging only.
    func verbose(_ line: String) { record(level: AV_LOG_VERBOSE, line: line) }

    func record(level: Int32, line: String) {
        // Libraries end some lines with their own newline (libpulse's "Connection refused\n" folded
        // into an ALSA line); one line per message keeps errors to one line.
        var line = Self.trimmed(line)
        for (secret, shown) in hidden.withLock({ $0 }) where line.contains(secret) {
            line = line.replacing(secret, with: shown)
        }
        if level <= AV_LOG_ERROR { lastError.value = Self.withoutContext(line) }
        if verbose.withLock({ $0 }) { StandardError.write(line + "\n") }
    }

    /// The line without trailing newlines or spaces.
    static func trimmed(_ line: String) -> String {
        var end = line.endIndex
        while end > line.startIndex, line[line.index(before: end)].isWhitespace { end = line.index(before: end) }
        return String(line[..<end])
    }

    /// The line without FFmpeg's context prefixes (`[lavfi @ 0x5637...] `), which name an object
    /// address that means nothing to a user; verbose logging still shows them.
    static func withoutContext(_ line: String) -> String {
        var rest = Substring(line)
        while rest.hasPrefix("["), let close = rest.firstIndex(of: "]"), rest[..<close].contains(" @ ") {
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        return String(rest)
    }

    /// The last error line logged on the calling thread since the previous call, and forgets it.
    public func takeLastError() -> String? {
        defer { lastError.value = nil }
        return lastError.value
    }
}
