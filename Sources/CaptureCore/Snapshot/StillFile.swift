import FoundationEssentials
import Glibc

/// Writes a picture file the way recordings are written: into a hidden file beside the target
/// (`.NAME.capture-PID`), pushed to disk, then moved to its name in one step, so a name never
/// holds half a picture and an existing file is replaced only when asked. The checks before any
/// device opens are `OutputFile`'s, as for a recording.
enum StillFile {
    /// Writes `bytes` to `path` (`open(2)`, `write(2)`, `fsync(2)`, then `rename(2)` when
    /// replacing, else `link(2)` and `unlink(2)`, which fail with `EEXIST` if the name was taken
    /// meanwhile). A FIFO or device given with `replacing` is written to directly.
    ///
    /// - Throws: `.outputExists` (73) when `path` exists and `replacing` is false;
    ///   `.cannotCreate` (73) when the hidden file cannot be made; `.io` (74) when writing fails
    ///   (a full disk). The hidden file is removed on failure; `path` is never touched then.
    static func write(_ bytes: [UInt8], to path: String, replacing: Bool) throws(CaptureError) {
        let file = OutputFile(path: path)
        let special = file.writesInPlace(replacing: replacing)
        let target = special ? path : file.temporaryPath
        let descriptor =
            special ? open(target, O_WRONLY | O_CLOEXEC) : open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw .cannotCreate(path: path, reason: Errno.current.description)
        }
        var written = 0
        var failure: Errno?
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if Errno.current == .interrupted { continue }
                    failure = .current
                    return
                }
                written += count
            }
        }
        if failure == nil && !special && fsync(descriptor) != 0 { failure = .current }
        if close(descriptor) != 0 && failure == nil { failure = .current }
        if let failure {
            if !special { unlink(file.temporaryPath) }
            throw .io(subject: path, reason: "writing the picture failed: \(failure)")
        }
        if special { return }
        switch file.moveIntoPlace(replacing: replacing) {
        case nil: return
        case .exists: throw .outputExists(path: path)
        case let cause?: throw .cannotCreate(path: path, reason: cause.description)
        }
    }
}
