import CaptureCore
import Foundation
import Testing

@testable import capture

/// Repeated `--video` and `--audio`, and the mode options that follow each.
@Suite struct SeveralDevicesOptionsTests {
    private func request(_ arguments: [String]) throws -> RecordingRequest {
        try RecordCommand(parse(arguments + ["out.mkv"], as: RecordCommand.spec)).request
    }

    @Test func eachOptionBelongsToTheDeviceItFollows() throws {
        let request = try request([
            "--framerate", "25", "--video", "/dev/video0", "--video-size", "1280x720", "--video", "/dev/video2",
            "--input-format", "mjpeg", "--video-size", "640x480", "--audio", "hw:1", "--sample-rate", "44100",
            "--audio", "pulse:", "--channels", "1",
        ])
        #expect(request.video == .v4l2(path: "/dev/video0"))
        #expect(request.videoSize == .init(width: 1280, height: 720))
        // Given before any --video: every camera that sets none itself.
        #expect(request.frameRate == Rational(25, 1))
        #expect(request.inputFormat == nil)
        #expect(
            request.moreCameras == [
                CameraRequest(
                    .v4l2(path: "/dev/video2"), videoSize: .init(width: 640, height: 480), frameRate: Rational(25, 1),
                    inputFormat: "mjpeg")
            ])
        #expect(request.cameras.count == 2)
        #expect(request.audio == .alsa(pcm: "hw:1"))
        #expect(request.sampleRate == 44100)
        #expect(request.channels == nil)
        #expect(request.moreMicrophones == [MicrophoneRequest(try DeviceName(parsing: "pulse:"), channels: 1)])
    }

    /// One device: the options apply to it wherever they stand, the last of a repeated one winning,
    /// as before several devices were taken.
    @Test func oneDeviceTakesItsOptionsFromAnywhere() throws {
        let request = try request([
            "--video-size", "320x240", "--video", "test", "--framerate", "30", "--video-size", "640x480",
        ])
        #expect(request.video == .test)
        #expect(request.videoSize == .init(width: 640, height: 480))
        #expect(request.frameRate == Rational(30, 1))
        #expect(request.moreCameras.isEmpty)
    }

    @Test func aBadValueNamesItsOption() throws {
        #expect(throws: UsageError.self) {
            try request(["--video", "test", "--video", "/dev/video2", "--video-size", "12x"])
        }
        #expect(throws: UsageError.self) {
            try request(["--audio", "test", "--audio", "hw:1", "--sample-rate", "9"])
        }
    }
}
