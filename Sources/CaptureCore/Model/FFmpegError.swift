internal import CFFmpeg

/// An error code returned by an FFmpeg call (a negative `AVERROR`), with the call that returned it
/// and the last line FFmpeg logged, which often names the real cause ("No such filter: 'x'").
public struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The raw `AVERROR` value, negative.
    public let code: Int32
    /// The C function that failed, such as `avformat_open_input`.
    public let call: String
    /// The last error line FFmpeg logged before the failure, if any.
    public let logLine: String?

    /// Wraps `code` (negative) from `call`, picking up the last logged error line.
    public init(_ code: Int32, call: String) {
        self.code = code
        self.call = call
        self.logLine = LibraryLog.shared.takeLastError()
    }

    /// The errno value when the code wraps one (`AVERROR(e)` is `-e`), else nil.
    public var errno: Errno? { code < 0 && code > -4096 ? Errno(rawValue: -code) : nil }

    /// The text of `av_strerror` for the code.
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        if let logLine, !logLine.isEmpty { return "\(message) (\(logLine))" }
        return message
    }

    /// True for `AVERROR(EAGAIN)`: not a failure, try again later.
    public var isAgain: Bool { code == CFFmpeg_AVERROR_EAGAIN }
    /// True for `AVERROR_EOF`: the end of the stream, not a failure.
    public var isEndOfFile: Bool { code == CFFmpeg_AVERROR_EOF }
}

/// Throws an `FFmpegError` when `code` is negative; returns it otherwise.
@discardableResult
func check(_ code: Int32, _ call: String) throws(FFmpegError) -> Int32 {
    if code < 0 { throw FFmpegError(code, call: call) }
    return code
}
