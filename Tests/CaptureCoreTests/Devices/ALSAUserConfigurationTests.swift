import Foundation
import Testing

@testable import CaptureCore

/// Which ALSA files are the user's, what libasound's parser finds in them, and which
/// configuration PCMs count as microphones.
@Suite struct ALSAUserConfigurationTests {
    static let system = "/usr/share/alsa/alsa.conf"

    @Test func homeFilesWithoutAnEnvironment() {
        let files = ALSAUserConfiguration.files(environment: [:], home: "/home/ana", systemConfiguration: Self.system)
        #expect(files.dropFirst() == ["/home/ana/.asoundrc", "/home/ana/.config/alsa/asoundrc"])
        #expect(files.first?.hasSuffix("/etc/asound.conf") == true)
    }

    @Test func xdgConfigHomeMovesTheSecondFileAndAnEmptyOneDoesNot() {
        let moved = ALSAUserConfiguration.files(
            environment: ["XDG_CONFIG_HOME": "/cfg"], home: "/home/ana", systemConfiguration: Self.system)
        #expect(moved.last == "/cfg/alsa/asoundrc")
        let empty = ALSAUserConfiguration.files(
            environment: ["XDG_CONFIG_HOME": ""], home: "/home/ana", systemConfiguration: Self.system)
        #expect(empty.last == "/home/ana/.config/alsa/asoundrc")
    }

    @Test func alsaConfigPathAddsTheFilesItNamesButNotALSAsOwn() {
        let files = ALSAUserConfiguration.files(
            environment: ["ALSA_CONFIG_PATH": "\(Self.system):/srv/a.conf ~/b.conf"], home: "/home/ana",
            systemConfiguration: Self.system)
        #expect(files.suffix(2) == ["/srv/a.conf", "/home/ana/b.conf"])
        #expect(!files.contains(Self.system))
    }

    @Test func alsaConfigPathStopsAtTheFirstEmptyEntryAsLibasoundDoes() {
        let files = ALSAUserConfiguration.files(
            environment: ["ALSA_CONFIG_PATH": "/srv/a.conf::/srv/b.conf"], home: "/h", systemConfiguration: Self.system)
        #expect(files.contains("/srv/a.conf"))
        #expect(!files.contains("/srv/b.conf"))
    }

    @Test func theParserGivesThePCMKeysOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capture-tree-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("asoundrc")
        try """
        # a comment
        pcm.!default { type asym capture.pcm "mic" }
        pcm.mic { type plug slave.pcm "hw:1,0" }
        pcm."with space" { type null }
        pcm.alias "hw:0"
        pcm { nested { type null } }
        ctl.mic { type hw card 1 }
        defaults.pcm.card 1
        """.write(to: file, atomically: true, encoding: .utf8)
        let tree = try #require(ALSAConfigTree())
        #expect(tree.load(path: file.path))
        #expect(tree.keys(of: "pcm") == ["default", "mic", "with space", "alias", "nested"])
        #expect(tree.keys(of: "ctl") == ["mic"])
    }

    @Test func aMissingOrBrokenFileLoadsNothing() throws {
        let tree = try #require(ALSAConfigTree())
        #expect(!tree.load(path: "/nonexistent/asoundrc"))
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent(
            "capture-broken-\(UUID().uuidString)")
        try "pcm.x { type null ".write(to: broken, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: broken) }
        // libasound's complaint goes to the library log, not to stderr.
        let log = LibraryLog.installedForTests
        let path = broken.path
        let (loaded, complaint) = onThreadOfItsOwn { () -> (Bool?, String?) in
            guard let tree = ALSAConfigTree() else { return (nil, nil) }
            return (tree.load(path: path), log.takeLastError())
        }
        #expect(loaded == false)
        #expect(complaint?.contains("Unexpected") == true)
    }

    @Test(arguments: [
        ("default", true), ("sysdefault", true), ("pulse", true), ("pipewire", true),
        ("dsnoop:CARD=Loopback,DEV=1", true), ("mic", true), ("mine:CARD=PCH", true),
        ("null", false), ("lavrate", false), ("upmix", false), ("jack", false), ("oss", false),
        ("speex:CARD=PCH", false), ("pulsex", false),
    ])
    func microphonesAreTheServerBridgesDefaultsDsnoopAndTheUsersOwn(name: String, microphone: Bool) {
        #expect(ALSAConfigurationPCMs.isMicrophone(name, userDefined: ["mic", "mine"]) == microphone)
    }
}
