import Glibc

extension CaptureError {
    /// A write to an output file that failed (exit 74); a full disk is said plainly, with what
    /// `kept` (the file, the segment) keeps of it.
    static func writeFailed(_ error: FFmpegError, subject: String, kept: String) -> CaptureError {
        if error.errno == ENOSPC {
            return .io(
                subject: subject, reason: "disk full (no space left on device); \(kept) keeps what was written before")
        }
        return .io(subject: subject, reason: "writing failed: \(error)")
    }
}
