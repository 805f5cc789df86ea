internal import CFFmpeg

/// Why a stream could not connect or went on no longer, in a few words for its one line.
enum StreamFailure {
    /// One short cause for a failed network call to `target`, secrets scrubbed: "connection
    /// refused", "host not found", "no answer within 5 s", or FFmpeg's own words with a hint.
    ///
    /// - Parameter timedOut: the call ended because our own deadline of `timeout` seconds passed
    ///   (`AVERROR_EXIT` from the interrupt callback, not a stop request).
    static func cause(of error: FFmpegError, target: OutputTarget, timeout: Double, timedOut: Bool) -> String {
        let noAnswer = "no answer within \(DurationValue.text(timeout)) s"
        if timedOut || error.errno == .timedOut {
            // SRT's own connect timeout is as long as ours: whichever ends first, the listener
            // did not answer, and the hint is the same.
            return target.scheme == "srt" ? noAnswer + "; check the port, the passphrase and the stream id" : noAnswer
        }
        switch error.errno {
        case .connectionRefused: return "connection refused; is the server running and listening on that port?"
        case .connectionReset: return "connection reset by the server"
        case .brokenPipe: return "the server closed the connection"
        case .networkUnreachable, .hostUnreachable: return "network unreachable"
        default: break
        }
        let text = target.scrub(error.description)
        if text.contains("Name or service not known") || text.contains("Temporary failure in name resolution")
            || text.contains("No address associated")
        {
            return "host not found (\(text))"
        }
        return hint(for: target, call: error.call, code: error.code, text: text)
    }

    /// FFmpeg's words with what to check for this kind of server.
    private static func hint(for target: OutputTarget, call: String, code: Int32, text: String) -> String {
        if target.scheme == "rtmp" && text.contains("handshake") {
            return "the server did not answer as RTMP (\(text)); if it speaks TLS on that port, use rtmps://"
        }
        // FFmpeg's TLS names the failed layer only in its log, which the error's text carries.
        if target.scheme == "rtmps" && text.contains("tls://") {
            return "the TLS handshake failed (\(text)); does the server speak TLS (rtmps) on that port?"
        }
        if target.scheme == "rtsp" && call == "avformat_write_header" {
            return "the RTSP server refused the stream (\(text)); check the path and, if it asks for them, "
                + "the user and password (rtsp://USER:PASSWORD@HOST/PATH)"
        }
        if target.scheme == "srt" {
            return "the listener refused the connection or did not answer (\(text)); "
                + "check the port, the passphrase and the stream id"
        }
        if call == "avformat_write_header" || code == CFFmpeg_AVERROR(EIO) {
            return "the server refused the stream (\(text)); check the application name and stream key"
        }
        return text
    }
}
