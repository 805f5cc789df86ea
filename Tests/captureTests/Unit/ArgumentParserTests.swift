import Testing

@testable import capture

@Suite struct ArgumentParserTests {
    let spec = CommandSpec(
        name: "demo", abstract: "A demo.",
        arguments: [ArgumentSpec(name: "output", help: "Where.")],
        options: [.flag("--json", help: "JSON."), .option("--duration", "seconds", help: "How long.", default: "10")]
    )

    @Test func flagsValuesAndPositionals() throws {
        let parsed = try parse(["--json", "--duration", "3", "out.mp4"], as: spec)
        #expect(parsed.flag("--json"))
        #expect(parsed.value("--duration") == "3")
        #expect(parsed.positionals == ["out.mp4"])
    }

    @Test func inlineValuesAndLastOneWins() throws {
        let parsed = try parse(["--duration=2", "--duration", "5", "x"], as: spec)
        #expect(parsed.value("--duration") == "5")
    }

    @Test func aRepeatedOptionKeepsEveryValueInOrder() throws {
        let repeating = CommandSpec(
            name: "demo", abstract: "A demo.", arguments: [ArgumentSpec(name: "device", help: "Which.")],
            options: [.option("--set", "name=value", help: "Set one.", repeats: true)])
        let parsed = try parse(["--set", "gain=200", "x", "--set=gain_automatic=0", "--set", "a=-1"], as: repeating)
        #expect(parsed.values("--set") == ["gain=200", "gain_automatic=0", "a=-1"])
        #expect(parsed.values("--other").isEmpty)
        #expect(Help.usage(repeating) == "capture demo [--set <name=value> ...] <device>")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--", "--json"], as: spec)
        #expect(parsed.positionals == ["--json"])
        #expect(!parsed.flag("--json"))
    }

    @Test func negativeNumbersAreValues() throws {
        let parsed = try parse(["--duration", "-1", "x"], as: spec)
        #expect(parsed.value("--duration") == "-1")
    }

    @Test(arguments: [
        (["--bogus", "x"], "Unknown option '--bogus'"),
        (["--duration"], "Missing value for '--duration <seconds>'"),
        (["--duration", "--json", "x"], "Missing value for '--duration <seconds>'"),
        ([], "Missing expected argument '<output>'"),
        (["a", "b"], "Unexpected argument 'b'"),
        (["--json=yes", "x"], "The flag '--json' does not take a value"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            _ = try parse(arguments, as: spec)
        } throws: { error in
            (error as? UsageError)?.message == message
        }
    }

    @Test func helpWinsOverMissingArguments() throws {
        #expect(try parse(["-h"], as: spec).helpRequested)
    }

    @Test func helpTextHasTheStandardBlocks() {
        let text = Help.text(spec)
        #expect(text.hasPrefix("OVERVIEW: A demo.\n"))
        #expect(text.contains("\nUSAGE: capture demo [--json] [--duration <seconds>] <output>\n"))
        #expect(text.contains("\nARGUMENTS:\n  <output>"))
        #expect(text.contains("How long. (default: 10)"))
        #expect(text.contains("  -h, --help              Show help information.\n"))
    }
}
