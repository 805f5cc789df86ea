import Foundation
import Testing

/// The command line as a user meets it: help, version, usage errors and exit codes.
@Suite struct CLITests {
    @Test(arguments: ["list", "probe", "controls"])
    func helpIsTheSameThreeWays(subcommand: String) throws {
        let short = try BuiltBinary.run([subcommand, "-h"])
        let long = try BuiltBinary.run([subcommand, "--help"])
        let viaHelp = try BuiltBinary.run(["help", subcommand])
        #expect(short.status == 0)
        #expect(short.stdout.hasPrefix("OVERVIEW: "))
        #expect(short.stdout.contains("\nUSAGE: capture \(subcommand)"))
        #expect(short.stdout.contains("\nOPTIONS:\n"))
        #expect(short.stdout == long.stdout)
        #expect(short.stdout == viaHelp.stdout)
        #expect(short.stderr.isEmpty)
    }

    @Test func rootHelpListsSubcommandsAndExitCodes() throws {
        let result = try BuiltBinary.run(["--help"])
        #expect(result.status == 0)
        for word in [
            "SUBCOMMANDS:", "  list ", "  probe ", "EXIT STATUS:", "  66  device not found", "  77  permission denied",
        ] {
            #expect(result.stdout.contains(word), "missing \(word)")
        }
    }

    @Test func versionNamesTheLinkedLibraries() throws {
        let result = try BuiltBinary.run(["--version"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("capture ") == true)
        for library in [
            "libavdevice", "libavformat", "libavcodec", "libswscale", "libswresample", "libavutil", "libasound",
            "libpulse",
        ] {
            // Each with a dotted version, e.g. "libavdevice 59.7.100".
            #expect(
                lines.contains {
                    $0.range(of: "^\(library) [0-9]+\\.[0-9]+\\.[0-9]+", options: .regularExpression) != nil
                })
        }
    }

    @Test(arguments: [
        ["--help"], ["list", "--help"], ["probe", "--help"], ["controls", "--help"], ["record", "--help"],
    ])
    func helpFitsEightyColumns(arguments: [String]) throws {
        let result = try BuiltBinary.run(arguments)
        #expect(result.status == 0)
        // The USAGE line stays one line, as swift-argument-parser prints it, for copying.
        for line in result.stdout.split(separator: "\n") where !line.hasPrefix("USAGE: ") {
            #expect(line.count <= 80, "\(line.count) columns: \(line)")
        }
    }

    @Test func recordHelpNamesEveryAudioCodecDefault() throws {
        let help = try BuiltBinary.run(["record", "--help"]).stdout
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("flac for .flac, opus for .opus"))
    }

    /// The README's synopses name every option the commands take.
    @Test(arguments: ["list", "probe", "controls", "record", "serve", "meter"]) func readmeSynopsisNamesVerbose(
        command: String
    )
        throws
    {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../../README.md"),
            encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(
            lines.firstIndex { $0.hasPrefix("capture \(command) [") || $0.hasPrefix("capture \(command) DEVICE") })
        var synopsis = String(lines[start])
        var next = start + 1
        while next < lines.count, lines[next].hasPrefix("      ") {
            synopsis += String(lines[next])
            next += 1
        }
        #expect(synopsis.contains("[--verbose]"))
    }

    @Test(arguments: [
        (["list", "--bogus"], "Error: Unknown option '--bogus'", "Usage: capture list"),
        (["frobnicate"], "Error: Unknown subcommand 'frobnicate'", "Usage: capture <subcommand>"),
        (["probe"], "Error: Missing expected argument '<device>'", "Usage: capture probe"),
        (["probe", "a", "b"], "Error: Unexpected argument 'b'", "Usage: capture probe"),
        (
            ["list", "--video-only", "--audio-only"], "Error: --video-only and --audio-only exclude each other",
            "Usage: capture list"
        ),
        (["probe", "v4l2:"], "Error: 'v4l2:': missing the name after 'v4l2:'", "Usage: capture probe"),
        (["list", "--json", "--names"], "Error: --names and --json exclude each other", "Usage: capture list"),
        (
            ["record", "--video-size", "99999x99999", "x.mkv"],
            "Error: --video-size takes WIDTHxHEIGHT up to 16384x16384 (e.g. 1280x720) or a name such as hd720, not '99999x99999'",
            "Usage: capture record"
        ),
        // A size or rate name FFmpeg does not know keeps the message numbers get.
        (
            ["record", "--video-size", "hd721", "x.mkv"],
            "Error: --video-size takes WIDTHxHEIGHT up to 16384x16384 (e.g. 1280x720) or a name such as hd720, not 'hd721'",
            "Usage: capture record"
        ),
        (
            ["record", "--framerate", "ntcs", "x.mkv"],
            "Error: --framerate takes frames per second up to 1000, e.g. 30, 29.97 or 30000/1001, not 'ntcs'",
            "Usage: capture record"
        ),
        // A rate no camera delivers was once recorded at 30 fps without a word.
        (
            ["record", "--video", "test", "--framerate", "1001", "x.mkv"],
            "Error: --framerate takes frames per second up to 1000, e.g. 30, 29.97 or 30000/1001, not '1001'",
            "Usage: capture record"
        ),
        (
            ["snapshot", "test", "--video-size", "HD720", "x.png"],
            "Error: --video-size takes WIDTHxHEIGHT up to 16384x16384 (e.g. 1280x720) or a name such as hd720, not 'HD720'",
            "Usage: capture snapshot"
        ),
    ])
    func usageErrorsExit64WithUsageLine(arguments: [String], error: String, usage: String) throws {
        let result = try BuiltBinary.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == error)
        #expect(lines.dropFirst().first?.hasPrefix(usage) == true)
        #expect(lines.last?.hasPrefix("  See 'capture") == true)
    }

    @Test func noArgumentsIsAUsageError() throws {
        let result = try BuiltBinary.run([])
        #expect(result.status == 64)
        #expect(result.stderr.contains("USAGE: capture <subcommand>"))
    }

    @Test func unknownDevicesExit66NamingTheDevice() throws {
        let result = try BuiltBinary.run(["probe", "/dev/video-that-does-not-exist"])
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("Error: /dev/video-that-does-not-exist: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let index = try BuiltBinary.run(["probe", "99"])
        #expect(index.status == 66)
        #expect(index.stderr.contains("camera 99"))
        #expect(index.stderr.contains("test"))
    }
}
