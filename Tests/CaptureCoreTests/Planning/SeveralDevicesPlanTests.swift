import Foundation
import Testing

@testable import CaptureCore

/// Several cameras and microphones: each planned with its own options, the outputs that hold one
/// of each refused before anything opens.
@Suite struct SeveralDevicesPlanTests {
    static let second = DeviceSurvey.Entry(
        device: Device(name: "/dev/video2", kind: .video, api: .v4l2, role: "camera", description: "vivid"),
        camera: VividFixtures.webcam)

    @Test func eachCameraGetsItsOwnMode() throws {
        var request = RecordingRequest(
            video: .v4l2(path: "/dev/video0"), output: "x.mkv", videoSize: .init(width: 1280, height: 720))
        request.moreCameras = [CameraRequest(.v4l2(path: "/dev/video2"), videoSize: .init(width: 640, height: 480))]
        request.audio = .test
        let survey = DeviceSurvey(
            cameras: [RecordingPlannerTests.vivid, Self.second], microphones: [RecordingPlannerTests.tone])
        let plan = try RecordingPlanner.plan(request, survey: survey)
        #expect(plan.videos.map(\.device.name) == ["/dev/video0", "/dev/video2"])
        #expect(plan.videos.map { $0.mode.map { "\($0.width)x\($0.height)" } } == ["1280x720", "640x480"])
        #expect(plan.audios.count == 1)
        // The first camera is the one a single-camera reader of the plan sees.
        #expect(plan.video?.device.name == "/dev/video0")
    }

    @Test(arguments: ["x.y4m", "x.h264", "x.m3u8"])
    func oneCameraContainersRefuseSeveral(output: String) {
        var request = RecordingRequest(video: .test, output: output)
        request.moreCameras = [CameraRequest(.v4l2(path: "/dev/video2"))]
        let survey = DeviceSurvey(cameras: [RecordingPlannerTests.test, Self.second], microphones: [])
        #expect(throws: CaptureError.self) { try RecordingPlanner.plan(request, survey: survey) }
        do {
            _ = try RecordingPlanner.plan(request, survey: survey)
        } catch {
            guard case .plan(.holdsOneOfEach(let option, _, let use)) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(option == .video)
            #expect(use.contains(".mkv") && use.contains(".mp4"))
        }
    }

    @Test func aCRFAndABitRateAreRefusedTogether() {
        let request = RecordingRequest(video: .test, output: "x.mp4", crf: 20, bitRate: 1_000_000)
        #expect(throws: CaptureError.self) {
            try RecordingPlanner.plan(request, survey: DeviceSurvey(video: RecordingPlannerTests.test))
        }
    }
}
