import Foundation
import Testing

/// The preview page in a real browser: headless Chromium loads `/` while the test pattern is
/// recorded; its screenshots show the pattern's colour bars in the picture's area, and two taken
/// a second apart differ there (the picture is live). The pixels are judged by
/// Tests/Preview/screenshot_check.py, read through ffmpeg.
@Suite(.serialized) struct RecordServeBrowserTests {
    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Preview/screenshot_check.py").standardized.path

    /// A screenshot of `url` by headless Chromium, 800x700, taken 3 s after the load started (the
    /// stream never ends loading, so the screenshot waits for no load event).
    static func screenshot(_ url: String, to path: String, profile: String) throws -> ChildProcess.Result {
        try ChildProcess.run(
            "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(profile)",
                "--window-size=800,700", "--timeout=3000", "--screenshot=\(path)", url,
            ])
    }

    @Test func thePageShowsTheLivePicture() async throws {
        let scratch = try RecordScratch()
        let port = try PreviewClient.freePort()
        let base = "http://127.0.0.1:\(port)"
        let (exit, shots) = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    [
                        "record", "--video", "test", "--duration", "20", "--serve", "127.0.0.1:\(port)",
                        scratch.path("browsed.mp4"),
                    ], in: scratch)
                try PreviewClient.waitUntilRecording(base)
                let first = try Self.screenshot("\(base)/", to: scratch.path("one.png"), profile: scratch.path("p"))
                Thread.sleep(forTimeInterval: 1)
                let second = try Self.screenshot("\(base)/", to: scratch.path("two.png"), profile: scratch.path("p"))
                process.signal(SIGINT)
                return (process.wait(timeout: 20), [first, second])
            }
        }
        #expect(exit?.status == 0)
        #expect(shots.allSatisfy { $0.status == 0 }, "\(shots.map(\.stderr))")
        // The page's picture spans the window's width less 12 px each side, 4:3 from 12 px down.
        let check = try ChildProcess.run(
            "python3", [Self.checker, scratch.path("one.png"), scratch.path("two.png"), "20", "20", "780", "580"])
        #expect(check.status == 0, "\(check.stderr) \(check.stdout)")
    }
}
