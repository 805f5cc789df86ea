import Glibc

/// A POSIX error number by name: what a failed system call, ioctl, libasound or FFmpeg call
/// reported (FFmpeg's `AVERROR(e)` and libasound's negative returns carry one).
///
/// Matched as swift-system's `Errno` is: `case .busy:` in a `switch` over an `Errno` or an
/// `Errno?`, several names in one case. Every place that turns one into a `CaptureError` matches
/// by name here; the device cases are mapped once, in `CaptureError.opening(_:failedWith:)`.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The positive errno value.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now: read it right after the call that failed.
    public static var current: Errno { Errno(rawValue: errno) }

    /// strerror(3)'s text.
    public var description: String { String(cString: strerror(rawValue)) }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)
    public static let noMemory = Errno(rawValue: ENOMEM)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let busy = Errno(rawValue: EBUSY)
    public static let exists = Errno(rawValue: EEXIST)
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let outOfRange = Errno(rawValue: ERANGE)
    public static let notImplemented = Errno(rawValue: ENOSYS)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let networkUnreachable = Errno(rawValue: ENETUNREACH)
    public static let hostUnreachable = Errno(rawValue: EHOSTUNREACH)

    /// EACCES or EPERM: the user may not do it (a device node's group, a read-only control).
    public var isPermission: Bool { self == .permissionDenied || self == .notPermitted }
    /// ENOENT, ENODEV or ENXIO: the device is not there (never was, or was unplugged).
    public var isGone: Bool { self == .noSuchFile || self == .noSuchDevice || self == .noSuchDeviceOrAddress }

    public static func ~= (pattern: Errno, value: Errno?) -> Bool { value == pattern }
}
