import Testing

@testable import CaptureCore

/// How a refusal names the rates a size is offered at: only a range reads "from ... to", so a
/// camera that offers 30 fps alone is not taken to offer 15.
@Suite struct RatesOnOfferTests {
    /// A v4l2loopback node fed MJPEG at 320x180: it lists that size at 30 fps only.
    static let loopback = VividFixtures.decode(
        #"{"bus_info":"platform:v4l2loopback-002","capabilities":["Video Capture","Read/Write","Streaming","Extended Pix Format"],"card":"loop32","controls":[],"current":{"fourcc":"MJPG","frame_rate":{"denominator":1,"numerator":30},"height":180,"width":320},"driver":"v4l2 loopback","formats":[{"buffer_type":"video-capture","code":1196444237,"compressed":true,"description":"Motion-JPEG","emulated":false,"ffmpeg_name":"mjpeg","fourcc":"MJPG","frame_sizes":[{"intervals":{"discrete":[{"denominator":30,"numerator":1}],"type":"discrete"},"max":{"height":180,"width":320},"min":{"height":180,"width":320},"step":{"height":1,"width":1},"type":"discrete"}]}],"input":{"index":0,"name":"loop32","type":"camera"},"inputs":[{"index":0,"name":"loop32","type":"camera"}],"multiplanar":false,"path":"/dev/video32"}"#
    )

    func refusal(_ probe: CameraProbe, size: String? = nil, rate: String) -> String? {
        let request = VideoRequest(
            frameSize: size.flatMap(FrameDimensions.init(parsing:)), frameRate: Rational(parsing: rate),
            inputFormat: nil,
            copy: false)
        do {
            _ = try ModeSelector.select(request, from: probe)
            return nil
        } catch {
            if case .notSupported(_, let reason) = error { return reason.description }
            return nil
        }
    }

    @Test func aSingleRateIsNamedAsTheOnlyOne() throws {
        let reason = try #require(refusal(Self.loopback, rate: "15"))
        #expect(reason.contains("no pixel format offers 15 fps"))
        #expect(reason.contains("320x180 at 30 fps (MJPG)"))
        #expect(!reason.contains("up to"))
    }

    @Test func manyDiscreteRatesAreNamedAsTheirSpan() throws {
        let reason = try #require(refusal(VividFixtures.webcam, size: "320x180", rate: "7"))
        #expect(reason.contains("320x180 at 12 rates from 1 to 60 fps"))
        #expect(!reason.contains("up to"))
    }
}
