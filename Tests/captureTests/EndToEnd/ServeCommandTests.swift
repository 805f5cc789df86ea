import Foundation
import Testing

/// `capture serve`: the preview server with nothing recorded, checked by the same Python client
/// as `record --serve`.
@Suite(.serialized) struct ServeCommandTests {
    @Test func servesTheTestPatternUntilStopped() async throws {
        let scratch = try RecordScratch()
        let port = try PreviewClient.freePort()
        let base = "http://127.0.0.1:\(port)"
        let (exit, stdout, replies, taken) = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    ["serve", "test", "--listen", ":\(port)", "--serve-rate", "10", "--serve-size", "320", "--json"],
                    in: scratch)
                let deadline = Date().addingTimeInterval(20)
                var status: PreviewClient.Reply?
                while Date() < deadline {
                    status = try? PreviewClient.run(["get", "\(base)/status.json"])
                    if let json = status?["json"] as? [String: Any], (json["frames"] as? Int ?? 0) > 0 { break }
                    Thread.sleep(forTimeInterval: 0.2)
                }
                let stream = try PreviewClient.run([
                    "stream", "\(base)/?action=stream", "--parts", "30", "--rate", "10", "--size", "320x240",
                ])
                let snapshot = try PreviewClient.run(["get", "\(base)/snapshot.jpg"])
                let taken = try BuiltBinary.run(["serve", "test", "--listen", "127.0.0.1:\(port)"])
                process.signal(SIGINT)
                let exit = process.wait(timeout: 20)
                let stdout = (try? String(contentsOfFile: scratch.path("capture.stdout"), encoding: .utf8)) ?? ""
                return (exit, stdout, [status, stream, snapshot].compactMap { $0 }, taken)
            }
        }
        #expect(exit?.status == 0)
        #expect(replies.count == 3)
        let status = try #require(replies.first?["json"] as? [String: Any])
        #expect(status["state"] as? String == "serving" && status["devices"] as? [String] == ["test"])
        #expect(replies[1]["parts"] as? Int == 30)
        #expect(replies[2]["size"] as? [Int] == [320, 240])
        // A second server on the same port is refused before it opens the camera, in its own words.
        #expect(taken.status == 73 && taken.stderr.contains("127.0.0.1:\(port)") && taken.stderr.contains("--listen"))
        let summary = try RecordStreamTests.summary(stdout)
        #expect((summary["pictures"] as? Int ?? 0) >= 31 && summary["device"] as? String == "test")
    }
}
