import Glibc

/// Writes text to stderr (file descriptor 2) with `write(2)`, unbuffered, ignoring failures.
///
/// A reader of stderr that went away (`capture record ... 2>&1 | head -1`) must cost its lines
/// only, never the recording: Foundation's `FileHandle.write` stops the process when the write
/// fails. SIGPIPE is ignored by `record`, so a closed pipe is a failed write here. Thread-safe as
/// `write(2)` is.
public enum StandardError {
    public static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && Errno.current == .interrupted {
                continue
            } else {
                return
            }
        }
    }
}
