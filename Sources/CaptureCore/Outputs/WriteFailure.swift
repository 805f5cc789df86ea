import Glibc

extension CaptureError {
    /// A write to an output file that failed (exit 74); a full disk is said plainly, with what
    /// `kept` (the file, the segment) keeps of it.
    static func writeFailed(_ error: FFmpegError, subject: String, kept: String) -> CaptureError {
        if error.errno == .noSpace {
            return .io(subject: subject, reason: "\(writeCause(error)); \(kept) keeps what was written before")
        }
        return .io(subject: subject, reason: "writing failed: \(error)")
    }

    /// An output file that could not be created (`OutputFile.create`): its name taken meanwhile
    /// (73, never replaced unasked), a file that cannot be made (73), or a muxer that refused the
    /// streams (1).
    static func creatingFailed(_ error: FFmpegError, path: String, formatName: String) -> CaptureError {
        if error.call == "rename" && error.errno == .exists { return .outputExists(path: path) }
        if error.call == "avio_open" || error.call == "rename" {
            return .cannotCreate(path: path, reason: error.description)
        }
        return .failed("\(path): the \(formatName) muxer refused the streams: \(error)")
    }

    /// Why a write or a rewrite of an output failed, in a few words: a full disk said plainly.
    static func writeCause(_ error: FFmpegError) -> String {
        error.errno == .noSpace ? "disk full (no space left on device)" : "\(error)"
    }
}
