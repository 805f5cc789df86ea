import Testing

@testable import CaptureCore

/// Which H.264 encoders a camera's recording tries: with `auto`, each hardware encoder whose device
/// the machine has, then x264; a hardware encoder asked for needs its device (69); x264's own
/// options ask for x264.
@Suite struct EncoderCandidatesTests {
    static let none = HardwareEncoderDevices()
    static let everything = HardwareEncoderDevices(
        renderNodes: ["/dev/dri/renderD128", "/dev/dri/renderD129"], m2mEncoders: ["/dev/video11"],
        nvidia: "/dev/nvidia0")

    @Test func autoWithNoHardwareIsX264() throws {
        #expect(try EncoderCandidates.list(.auto, devices: Self.none) == [.init(choice: .x264, device: nil)])
    }

    @Test func autoTriesEveryHardwareEncoderThereIsThenX264() throws {
        let list = try EncoderCandidates.list(.auto, devices: Self.everything)
        #expect(list.map(\.choice) == [.nvenc, .vaapi, .qsv, .v4l2m2m, .x264])
        #expect(
            list.map(\.device) == ["/dev/nvidia0", "/dev/dri/renderD128", "/dev/dri/renderD128", "/dev/video11", nil])
        #expect(list.map(\.encoderName) == ["h264_nvenc", "h264_vaapi", "h264_qsv", "h264_v4l2m2m", "libx264"])
        #expect(list.map(\.pixelFormat) == ["yuv420p", "nv12", "nv12", "yuv420p", "yuv420p"])
    }

    @Test(arguments: [VideoEncoderChoice.vaapi, .qsv, .v4l2m2m, .nvenc])
    func aHardwareEncoderWithoutItsDeviceExits69NamingWhatIsMissing(choice: VideoEncoderChoice) {
        #expect {
            try EncoderCandidates.list(choice, devices: Self.none)
        } throws: { error in
            guard let error = error as? CaptureError, error.exitCode == 69 else { return false }
            let text = "\(error)"
            let needs = [
                "vaapi": "/dev/dri/renderD*", "qsv": "/dev/dri/renderD*", "v4l2m2m": "memory-to-memory",
                "nvenc": "/dev/nvidia0",
            ][choice.rawValue]!
            return text.contains(choice.encoderName!) && text.contains(needs) && text.contains("x264")
        }
    }

    @Test func aHardwareEncoderAskedForIsTheOnlyOneTried() throws {
        #expect(
            try EncoderCandidates.list(.vaapi, devices: Self.everything) == [
                .init(choice: .vaapi, device: "/dev/dri/renderD128")
            ])
        #expect(try EncoderCandidates.list(.x264, devices: Self.everything) == [.init(choice: .x264, device: nil)])
    }

    static let test = DeviceSurvey.Entry(device: TestSources.video)

    static func plan(_ configure: (inout RecordingRequest) -> Void, devices: HardwareEncoderDevices) throws
        -> RecordingPlan
    {
        var request = RecordingRequest(video: .test, output: "out.mp4")
        configure(&request)
        var survey = DeviceSurvey(video: Self.test)
        survey.hardwareEncoders = devices
        return try RecordingPlanner.plan(request, survey: survey)
    }

    @Test func x264sOwnOptionsAskForX264() throws {
        let plan = try Self.plan({ $0.preset = "fast" }, devices: Self.everything)
        #expect(plan.videos.first?.encoders == [.init(choice: .x264, device: nil)])
        #expect {
            try Self.plan(
                {
                    $0.crf = 20
                    $0.encoder = .vaapi
                }, devices: Self.everything)
        } throws: { ($0 as? CaptureError)?.exitCode == 64 && "\($0)".contains("the constant rate factor is x264's") }
    }

    @Test func anEncoderForRawVideoOrNoVideoIsRefused() throws {
        #expect {
            try Self.plan(
                {
                    $0.videoCodec = .raw
                    $0.output = "out.mkv"
                    $0.encoder = .x264
                }, devices: Self.none)
        } throws: { ($0 as? CaptureError)?.exitCode == 64 && "\($0)".contains("the H.264 encoder applies to") }
        let raw = try Self.plan(
            {
                $0.videoCodec = .raw
                $0.output = "out.mkv"
            }, devices: Self.everything)
        #expect(raw.videos.first?.encoders == [])
    }
}
