internal import CShim
import FoundationEssentials
import Glibc

/// A failed system call on a V4L2 node: the call and its errno.
struct V4L2CallError: Error, Equatable {
    var call: String
    var code: Int32

    /// The text of strerror(3).
    var message: String { String(cString: strerror(code)) }
}

/// An open file descriptor on a V4L2 node, used only to query it (never to stream); closed in
/// deinit.
///
/// Opened non-blocking, so a busy or stalled device never blocks a query.
final class V4L2Handle {
    let path: String
    let fd: Int32

    /// Opens `path` read-write, or read-only when only reading is permitted (querying needs no
    /// write access).
    ///
    /// Wraps open(2) with `O_NONBLOCK | O_CLOEXEC`.
    /// - Throws: `V4L2CallError` with the errno of the read-write attempt when both fail.
    init(path: String) throws(V4L2CallError) {
        var descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 {
            let first = errno
            descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor < 0 { throw V4L2CallError(call: "open", code: first == EACCES ? first : errno) }
        }
        self.path = path
        self.fd = descriptor
    }

    deinit { close(fd) }

    /// Runs one ioctl with `argument` read and written in place.
    ///
    /// Wraps `ioctl(2)` through `CShim_ioctl`, which retries on EINTR.
    /// - Throws: `V4L2CallError` naming `call` (e.g. "VIDIOC_ENUM_FMT") and the errno.
    func ioctl<T>(_ request: UInt, _ call: String, _ argument: inout T) throws(V4L2CallError) {
        let result = withUnsafeMutablePointer(to: &argument) { CShim_ioctl(fd, request, $0) }
        if result < 0 { throw V4L2CallError(call: call, code: errno) }
    }

    /// VIDIOC_QUERYCAP.
    func queryCapabilities() throws(V4L2CallError) -> v4l2_capability {
        var caps = v4l2_capability()
        try ioctl(CShim_VIDIOC_QUERYCAP, "VIDIOC_QUERYCAP", &caps)
        return caps
    }
}

/// Decodes a fixed-size, NUL-terminated C char array (imported as a tuple) as UTF-8, repairing
/// bad bytes with U+FFFD so the result is always valid in JSON.
func decodeCString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
