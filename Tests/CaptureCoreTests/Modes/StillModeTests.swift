import Testing

@testable import CaptureCore

/// A still's default mode: the largest size listed, whatever its rate (a recording's default
/// wants 25 fps), then the fastest rate there.
@Suite struct StillModeTests {
    @Test func theLargestSizeOfTheVividWebcam() throws {
        let probe = VividFixtures.webcam
        let listed = probe.formats.flatMap { $0.frameSizes.map(\.max) }.max { $0.area < $1.area }
        let size = try #require(try ModeSelector.largestSize(inputFormat: nil, from: probe))
        #expect(size == listed)
        #expect(size.area > FrameDimensions(width: 1920, height: 1080).area - 1)
        let mode = try ModeSelector.select(VideoRequest(frameSize: size), from: probe)
        #expect(mode.size == size)
    }

    @Test func restrictedToTheFormatAsked() throws {
        let raw = try ModeSelector.largestSize(inputFormat: "yuyv422", from: ModeSelectorTests.uvc)
        #expect(raw == FrameDimensions(width: 1920, height: 1080))
        var probe = ModeSelectorTests.uvc
        probe.formats[0].frameSizes.removeLast()
        #expect(
            try ModeSelector.largestSize(inputFormat: "YUYV", from: probe) == FrameDimensions(width: 640, height: 480))
        #expect(
            try ModeSelector.largestSize(inputFormat: nil, from: probe) == FrameDimensions(width: 1920, height: 1080))
        #expect(throws: CaptureError.self) { try ModeSelector.largestSize(inputFormat: "h264", from: probe) }
    }

    @Test func aRangeCountsWithItsLargestSize() throws {
        var probe = ModeSelectorTests.uvc
        probe.formats[1].frameSizes = [
            FrameSize(
                type: .stepwise, min: FrameDimensions(width: 16, height: 16),
                max: FrameDimensions(width: 2592, height: 1944), step: FrameDimensions(width: 16, height: 16),
                intervals: FrameIntervals(type: .discrete, discrete: [Rational(1, 15)]))
        ]
        #expect(
            try ModeSelector.largestSize(inputFormat: nil, from: probe) == FrameDimensions(width: 2592, height: 1944))
    }
}
