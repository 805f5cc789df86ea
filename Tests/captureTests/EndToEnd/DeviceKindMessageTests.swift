import Foundation
import Testing

/// What a wrong device name says: a name of the other kind, a name nobody has, a file that is
/// not a camera.
@Suite struct DeviceKindMessageTests {
    static func cameras() throws -> [String] {
        let list = try BuiltBinary.run(["list", "--json", "--video-only"])
        let cameras = try #require(try MicrophoneTestSupport.object(list.stdout)["cameras"] as? [[String: Any]])
        return cameras.compactMap { $0["name"] as? String }
    }

    static func microphones() throws -> [String] {
        let list = try BuiltBinary.run(["list", "--json", "--audio-only"])
        let microphones = try #require(
            try MicrophoneTestSupport.object(list.stdout)["microphones"] as? [[String: Any]])
        return microphones.compactMap { $0["name"] as? String }
    }

    @Test func anALSANameAsVideoSaysItIsAMicrophoneAndListsCameras() throws {
        let result = try BuiltBinary.run([
            "record", "--video", "hw:0", NSTemporaryDirectory() + "/capture-kind-\(getpid()).mkv",
        ])
        #expect(result.status == 66)
        let cameras = try Self.cameras()
        #expect(cameras.contains("test"))
        #expect(
            result.stderr == "Error: hw:0 is an ALSA microphone name; cameras: \(cameras.joined(separator: ", "))\n")
    }

    @Test func anUnknownALSANameListsEveryMicrophoneWithTheTestTone() throws {
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--audio", "hw:97", NSTemporaryDirectory() + "/capture-kind-\(getpid()).mkv",
        ])
        #expect(result.status == 66)
        let microphones = try Self.microphones()
        #expect(microphones.last == "test")
        #expect(result.stderr.hasSuffix(". Valid devices: \(microphones.joined(separator: ", "))\n"))
    }

    @Test func aFileThatIsNoV4L2NodeIsNotACamera() throws {
        let result = try BuiltBinary.run(["probe", "/dev/null"])
        #expect(result.status == 69)
        #expect(
            result.stderr.hasPrefix(
                "Error: /dev/null: not a camera: a character device that is not a V4L2 node; cameras: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
