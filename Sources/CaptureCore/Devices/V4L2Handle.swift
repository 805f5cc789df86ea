internal import CShim
import FoundationEssentials
import Glibc

/// A failed system call on a V4L2 node: the call and its errno.
struct V4L2CallError: Error, Equatable {
    var call: String
    var errno: Errno

    /// The text of strerror(3).
    var message: String { errno.description }
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
            let first = Errno.current
            descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor < 0 {
                throw V4L2CallError(call: "open", errno: first == .permissionDenied ? first : .current)
            }
        }
        self.path = path
        self.fd = descriptor
    }

    deinit { close(fd) }

    /// Stops the capture streaming of `path` that this process runs on a descriptor it did not
    /// open itself (FFmpeg's), found through /proc/self/fd: VIDIOC_STREAMOFF on it wakes a read
    /// blocked in VIDIOC_DQBUF with an error, which is how a stalled camera's reader is freed.
    ///
    /// - Returns: true when a descriptor of `path` took the call.
    static func stopStreaming(path: String) -> Bool {
        guard let target = realpath(path, nil) else { return false }
        defer { free(target) }
        let device = String(cString: target)
        var stopped = false
        let folder = "/proc/self/fd"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let fd = Int32(name) else { continue }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
            let count = readlink(folder + "/" + name, &buffer, buffer.count - 1)
            guard count > 0, String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == device
            else { continue }
            // Only the descriptor that streams may stop it; the others answer EBUSY. A
            // multiplanar camera streams the multiplanar buffer type, the others the plain one.
            for bufferType in [V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE] {
                var type = Int32(bitPattern: bufferType.rawValue)
                if withUnsafeMutablePointer(to: &type, { CShim_ioctl(fd, CShim_VIDIOC_STREAMOFF, $0) }) == 0 {
                    stopped = true
                }
            }
        }
        return stopped
    }

    /// Runs one ioctl with `argument` read and written in place.
    ///
    /// Wraps `ioctl(2)` through `CShim_ioctl`, which retries on EINTR.
    /// - Throws: `V4L2CallError` naming `call` (e.g. "VIDIOC_ENUM_FMT") and the errno.
    func ioctl<T>(_ request: UInt, _ call: String, _ argument: inout T) throws(V4L2CallError) {
        let result = withUnsafeMutablePointer(to: &argument) { CShim_ioctl(fd, request, $0) }
        if result < 0 { throw V4L2CallError(call: call, errno: .current) }
    }

    /// True when another file descriptor owns the capture queue of `path` (a program streams the
    /// camera): VIDIOC_REQBUFS asking for no buffers answers EBUSY then, and changes nothing
    /// otherwise. Lets a recording find a busy camera before it spends time on anything else.
    static func isStreamedElsewhere(path: String) -> Bool {
        guard let handle = try? V4L2Handle(path: path) else { return false }
        // A multiplanar-only camera refuses the plain buffer type (EINVAL): each type is asked.
        for type in [V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE] {
            var request = v4l2_requestbuffers()
            request.count = 0
            request.type = type.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            do {
                try handle.ioctl(CShim_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)
            } catch {
                if error.errno == .busy { return true }
            }
        }
        return false
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
