import Foundation
import Testing

/// `capture list` end to end, on a machine with no cameras or sound cards (as CI is).
@Suite struct ListTests {
    @Test func textGroupsCamerasAndMicrophonesWithTheTestSources() throws {
        let result = try BuiltBinary.run(["list"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Cameras:\n"))
        #expect(result.stdout.contains("Microphones:\n"))
        #expect(result.stdout.contains("] test  Test pattern"))
        #expect(result.stdout.contains("] test  Test tone"))
    }

    @Test func jsonHasTheDocumentedShape() throws {
        let result = try BuiltBinary.run(["list", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["cameras", "microphones", "other"])
        let cameras = try #require(object["cameras"] as? [[String: Any]])
        let microphones = try #require(object["microphones"] as? [[String: Any]])
        // Indices count from 0 in order within each group, as --video N / --audio N take them.
        #expect(cameras.map { $0["index"] as? Int } == Array(0..<cameras.count))
        #expect(microphones.map { $0["index"] as? Int } == Array(0..<microphones.count))
        let testCamera = try #require(cameras.last)
        #expect(testCamera["name"] as? String == "test")
        #expect(testCamera["api"] as? String == "test")
        #expect(testCamera["kind"] as? String == "video")
        #expect(testCamera["is_virtual"] as? Bool == true)
        #expect(testCamera["accessible"] as? Bool == true)
        let testMicrophone = try #require(microphones.last)
        #expect(testMicrophone["kind"] as? String == "audio")
        #expect(testMicrophone["name"] as? String == "test")
    }

    @Test func onlyOneKindWhenAsked() throws {
        let video =
            try JSONSerialization.jsonObject(
                with: Data(try BuiltBinary.run(["list", "--json", "--video-only"]).stdout.utf8)) as? [String: Any]
        #expect((video?["microphones"] as? [Any])?.isEmpty == true)
        #expect((video?["cameras"] as? [Any])?.isEmpty == false)
        let audio = try BuiltBinary.run(["list", "--audio-only"])
        #expect(!audio.stdout.contains("Cameras:"))
        #expect(audio.stdout.contains("Microphones:"))
    }
}
