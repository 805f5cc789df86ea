import Glibc
import Testing

@testable import CaptureCore

/// The one-line causes of a stream that cannot connect, by the kind of server.
@Suite struct StreamFailureTests {
    static func cause(_ url: String, _ code: Int32, call: String = "avio_open2", timedOut: Bool = false) -> String {
        StreamFailure.cause(
            of: FFmpegError(code, call: call), target: OutputTarget(url), timeout: 5, timedOut: timedOut)
    }

    /// Our deadline and SRT's own connect timeout are as long: whichever ends the wait, the same
    /// words and the same hint (a test failed when one or the other came first).
    @Test func srtThatDoesNotAnswerGetsItsHintEitherWay() {
        let ours = Self.cause("srt://host:9000", -1, timedOut: true)
        let its = Self.cause("srt://host:9000", -ETIMEDOUT)
        #expect(ours == its)
        #expect(ours == "no answer within 5 s; check the port, the passphrase and the stream id")
        #expect(Self.cause("rtmp://host/live/key", -1, timedOut: true) == "no answer within 5 s")
    }

    @Test func refusedConnectionSaysSo() {
        #expect(Self.cause("rtsp://host/cam", -ECONNREFUSED).hasPrefix("connection refused"))
    }

    @Test func anRTSPServerThatRefusesTheStreamPointsAtThePathAndUser() {
        let text = Self.cause("rtsp://door:pw1234@host/cam", -EIO, call: "avformat_write_header")
        #expect(text.hasPrefix("the RTSP server refused the stream"))
        #expect(text.contains("rtsp://USER:PASSWORD@HOST/PATH") && !text.contains("pw1234"))
    }
}
