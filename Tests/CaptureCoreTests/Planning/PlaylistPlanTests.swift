import Testing

@testable import CaptureCore

/// A `.m3u8` output plans an HLS playlist: its segment length and window from `--segment-time`
/// and `--keep`, its muxer options, the segment names beside it.
@Suite struct PlaylistPlanTests {
    static let test = DeviceSurvey.Entry(device: TestSources.video)

    @Test func defaultsToTwoSecondSegmentsInAnEventPlaylist() throws {
        let plan = try RecordingPlanner.plan(
            RecordingRequest(video: .test, output: "live/cam.m3u8"), survey: DeviceSurvey(video: Self.test))
        #expect(plan.playlist == PlaylistPlan(segmentSeconds: 2, keep: nil))
        #expect(plan.segments == nil)
        #expect(plan.video?.codec == .h264)
        let options = try #require(plan.playlist).muxerOptions(playlist: "live/cam.m3u8")
        #expect(options["hls_segment_filename"] == "./live/cam-%05d.ts")
        #expect(plan.playlist?.isEvent == true)
        // The recorder deletes segments itself, by its window.
        #expect(options["hls_flags"]?.contains("delete_segments") == false)
        #expect(PlaylistPlan.workingPlaylist("live/cam.m3u8") == "live/.cam.m3u8")
    }

    @Test func segmentTimeAndKeepMakeASlidingWindow() throws {
        var request = RecordingRequest(video: .test, output: "cam.m3u8")
        request.segmentTime = 4
        request.retention.keep = 3
        let plan = try #require(try RecordingPlanner.plan(request, survey: DeviceSurvey(video: Self.test)).playlist)
        #expect(plan == PlaylistPlan(segmentSeconds: 4, keep: 3))
        #expect(!plan.isEvent)
        #expect(plan.muxerOptions(playlist: "cam.m3u8")["hls_time"] == "4")
    }

    @Test func maxTotalSizeIsItsBudget() throws {
        var request = RecordingRequest(video: .test, output: "cam.m3u8")
        request.retention.maxTotalBytes = 1 << 30
        let plan = try #require(try RecordingPlanner.plan(request, survey: DeviceSurvey(video: Self.test)).playlist)
        #expect(plan == PlaylistPlan(segmentSeconds: 2, keep: nil, maxTotalBytes: 1 << 30))
        #expect(!plan.isEvent)
    }

    @Test func keepWithoutSegmentsIsStillRefusedForAFile() {
        var request = RecordingRequest(video: .test, output: "cam.mp4")
        request.retention.keep = 3
        #expect(throws: CaptureError.self) {
            try RecordingPlanner.plan(request, survey: DeviceSurvey(video: Self.test))
        }
    }

    @Test(arguments: [("cam.m3u8", 0, "cam-00000.ts"), ("a/b/Cam.M3U8", 12, "a/b/Cam-00012.ts")])
    func segmentsAreNamedAfterThePlaylist(playlist: String, number: Int, name: String) {
        #expect(PlaylistPlan.segmentName(playlist: playlist, number: number) == name)
    }

    /// A relative folder starts with ./, so that a colon in it is no protocol to FFmpeg.
    @Test(arguments: [
        ("cam.m3u8", "./cam-%05d.ts"), ("x:y/cam.m3u8", "./x:y/cam-%05d.ts"), ("/srv/a.m3u8", "/srv/a-%05d.ts"),
    ])
    func thePatternIsNoURL(playlist: String, pattern: String) {
        #expect(PlaylistPlan.segmentPattern(playlist: playlist) == pattern)
    }

    @Test(arguments: ["a%d.m3u8", "a:b.m3u8", "x?y.m3u8", "x#y.m3u8", "a b.m3u8", "cam.mkv", ".m3u8"])
    func namesAURLWouldMisreadAreRefused(name: String) {
        #expect(throws: CaptureError.self) { try PlaylistPlan.checkName("live/" + name) }
    }

    @Test func aNameTooLongForTheTemporaryFilesIsRefused() throws {
        try PlaylistPlan.checkName(String(repeating: "a", count: 230) + ".m3u8")
        #expect(throws: CaptureError.self) {
            try PlaylistPlan.checkName(String(repeating: "a", count: 245) + ".m3u8")
        }
    }

    @Test func segmentTimeIsWholeSeconds() {
        var request = RecordingRequest(video: .test, output: "cam.m3u8")
        request.segmentTime = 2.5
        #expect(throws: CaptureError.self) {
            try RecordingPlanner.plan(request, survey: DeviceSurvey(video: Self.test))
        }
    }
}
