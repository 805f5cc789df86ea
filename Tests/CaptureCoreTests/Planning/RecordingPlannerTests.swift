import Foundation
import Testing

@testable import CaptureCore

/// The planner decides from a request and what the devices reported; these surveys are recorded
/// driver answers (vivid, a v4l2loopback H.264 camera, an ALSA card), so nothing is opened.
@Suite struct RecordingPlannerTests {
    static let vivid = DeviceSurvey.Entry(
        device: Device(name: "/dev/video0", kind: .video, api: .v4l2, role: "camera", description: "vivid"),
        camera: VividFixtures.webcam)

    /// v4l2loopback fed H.264 at 320x180, as the guest's `capture probe --json` reports it: only the
    /// producer's format and size, at 30 fps.
    static let h264Camera = DeviceSurvey.Entry(
        device: Device(name: "/dev/video31", kind: .video, api: .v4l2, role: "camera", description: "loop31"),
        camera: VividFixtures.decode(
            #"{"bus_info":"platform:v4l2loopback-001","capabilities":["Video Capture","Streaming"],"card":"loop31","controls":[],"current":{"fourcc":"H264","frame_rate":{"denominator":1,"numerator":30},"height":180,"width":320},"driver":"v4l2 loopback","formats":[{"buffer_type":"video-capture","code":875967048,"compressed":true,"description":"H.264","emulated":false,"ffmpeg_name":"h264","fourcc":"H264","frame_sizes":[{"intervals":{"discrete":[{"denominator":30,"numerator":1}],"type":"discrete"},"max":{"height":180,"width":320},"min":{"height":180,"width":320},"step":{"height":1,"width":1},"type":"discrete"}]}],"input":{"index":0,"name":"loopback","type":"camera"},"inputs":[{"index":0,"name":"loopback","type":"camera"}],"multiplanar":false,"path":"/dev/video31"}"#
        ))

    static let test = DeviceSurvey.Entry(device: TestSources.video)
    static let tone = DeviceSurvey.Entry(device: TestSources.audio)

    /// An ALSA card that captures `channels` channels of S32_LE at 48 kHz only.
    static func microphone(channels: UInt32) -> DeviceSurvey.Entry {
        let probe = AudioFormatChoiceTests.probe(formats: ["S32_LE"], channels: channels...channels, rates: [48000])
        return DeviceSurvey.Entry(device: probe.device, microphone: probe)
    }

    func plan(_ request: RecordingRequest, _ survey: DeviceSurvey) throws(CaptureError) -> RecordingPlan {
        try RecordingPlanner.plan(request, survey: survey)
    }

    func planError(_ request: RecordingRequest, _ survey: DeviceSurvey) -> RecordingPlanError? {
        do {
            _ = try plan(request, survey)
            return nil
        } catch {
            if case .plan(let reason) = error { return reason }
            return nil
        }
    }

    @Test func optionsWithoutTheirSourceNameTheOptionNotAFlag() {
        var request = RecordingRequest(audio: .test, output: "x.wav")
        request.frames = 10
        #expect(planError(request, DeviceSurvey(audio: Self.tone)) == .needsVideo(.frameLimit))
        request = RecordingRequest(video: .test, output: "x.mkv")
        request.channels = 2
        #expect(planError(request, DeviceSurvey(video: Self.test)) == .needsAudio(.channels))
        request = RecordingRequest(video: .test, output: "x.nut", videoCodec: .raw, crf: 20)
        #expect(planError(request, DeviceSurvey(video: Self.test)) == .appliesToH264Only(.crf))
        // The message points at the option; the words for it are the front end's.
        let message = RecordingPlanError.needsVideo(.frameLimit).message
        #expect(message.options == [.frameLimit, .video])
        #expect(
            message.rendered { option, _ in "<\(option.rawValue)>" } == "<frameLimit> needs a video source (<video>)")
    }

    /// A refusal offers only what there is: no "use --codec , or" when no codec would do, and no
    /// "or record ... to" when no other container would.
    @Test func aRefusalNamesOnlyTheWaysOutThereAre() {
        let nowhere = RecordingPlanError.videoCodecNotInContainer(
            .raw, fileExtension: "ts", working: [], others: ".mkv")
        #expect(nowhere.message.description == ".ts files cannot hold raw video; record raw to .mkv")
        let noOther = RecordingPlanError.audioCodecNotInContainer(
            .flac, fileExtension: "m4a", working: ["aac"], others: "")
        #expect(
            noOther.message.rendered { option, value in "--x \(value ?? "")" }
                == ".m4a files cannot hold flac audio; use --x aac")
    }

    @Test func codecsTheContainerCannotHoldAreRefusedWithWhatWorks() {
        let y4m = planError(
            RecordingRequest(video: .test, output: "x.y4m", videoCodec: .h264), DeviceSurvey(video: Self.test))
        guard case .videoCodecNotInContainer(.h264, "y4m", let working, _)? = y4m else {
            Issue.record("\(String(describing: y4m))")
            return
        }
        #expect(working == ["raw"])
        #expect(
            planError(RecordingRequest(video: .test, output: "x.wav"), DeviceSurvey(video: Self.test))
                == .containerHoldsNoVideo(fileExtension: "wav", use: ContainerFormat.extensions { $0.holdsVideo }))
        #expect(
            planError(
                RecordingRequest(video: .test, output: "x.mp4", pixelFormat: "yuv422p"), DeviceSurvey(video: Self.test))
                == .h264Needs420("yuv422p", takes: PixelFormat.x264Formats420.map(\.name)))
        #expect(
            planError(
                RecordingRequest(video: .test, output: "x.y4m", pixelFormat: "nv12"), DeviceSurvey(video: Self.test))
                == .pixelFormatNotInContainer(
                    "nv12", fileExtension: "y4m", use: ["yuv420p", "yuv422p", "yuv444p"], others: ".mkv, .nut, .avi"))
    }

    @Test func theCameraModeIsChosenFromItsProbe() throws {
        var request = RecordingRequest(video: .v4l2(path: "/dev/video0"), output: "x.mp4")
        request.videoSize = FrameDimensions(width: 1280, height: 720)
        let video = try #require(try plan(request, DeviceSurvey(video: Self.vivid)).video)
        #expect(video.mode?.width == 1280 && video.mode?.height == 720)
        #expect(video.codec == .h264)
        #expect(video.x264Options == ["preset": "veryfast", "thread_type": "slice", "crf": "23"])
    }

    @Test func aCameraOwnH264IsCopiedUnlessSomethingAsksForReencoding() throws {
        let survey = DeviceSurvey(video: Self.h264Camera)
        let copied = try #require(
            try plan(RecordingRequest(video: .v4l2(path: "/dev/video31"), output: "x.mp4"), survey).video)
        #expect(copied.codec == .copy && copied.requestedCodec == .h264)
        let request = RecordingRequest(video: .v4l2(path: "/dev/video31"), output: "x.mp4", preset: "ultrafast")
        let encoded = try #require(try plan(request, survey).video)
        #expect(encoded.codec == .h264)
        #expect(encoded.x264Options["preset"] == "ultrafast")
    }

    @Test func controlsNeedAV4L2Camera() {
        var request = RecordingRequest(video: .test, output: "x.mkv")
        request.controls = [ControlSetting(name: "brightness", value: "20")]
        #expect(planError(request, DeviceSurvey(video: Self.test)) == .controlsNeedCamera)
    }

    @Test func theMicrophoneDecidesTheAudioEncoderBeforeAnythingOpens() throws {
        let request = RecordingRequest(audio: .alsa(pcm: "hw:CARD=Mic,DEV=0"), output: "x.flac")
        let audio = try #require(try plan(request, DeviceSurvey(audio: Self.microphone(channels: 2))).audio)
        #expect(audio.encoder?.encoder == "flac")
        #expect(audio.encoder?.writtenFormat == "s24")
        // Ten channels do not fit AAC: the device's fault as the user sees it (69), found now.
        #expect(throws: CaptureError.self) {
            try plan(
                RecordingRequest(audio: .alsa(pcm: "hw:CARD=Mic,DEV=0"), output: "x.m4a"),
                DeviceSurvey(audio: Self.microphone(channels: 10)))
        }
    }

    @Test func planningTouchesNoFile() throws {
        // The survey-based planner never looks at the output path: checking it is `plan(_:)`'s.
        let request = RecordingRequest(video: .test, output: "/nonexistent-\(getpid())/x.mp4")
        let plan = try plan(request, DeviceSurvey(video: Self.test))
        #expect(plan.output == request.output)
        #expect(plan.muxerOptions["movflags"]?.contains("frag_keyframe") == true)
        #expect(!FileManager.default.fileExists(atPath: request.output))
    }
}
