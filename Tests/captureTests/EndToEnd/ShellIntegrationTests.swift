import Foundation
import Testing

/// The manual page and the completion scripts, as the tools that read them see them: groff and
/// man render the page, and bash, zsh and fish complete command lines through the generated scripts.
@Suite struct ShellIntegrationTests {
    /// The subcommands and their options, read from the built binary's help (what the parser
    /// takes), to check the manual and the completions against.
    static func helpOptions(_ subcommand: String) throws -> [String] {
        let help = try BuiltBinary.run([subcommand, "--help"]).stdout
        let block = try #require(help.components(separatedBy: "\nOPTIONS:\n").last)
        return block.split(separator: "\n").compactMap { line in
            // "  -h, --help   Show ..." or "  --video <device>   Camera ...".
            guard line.hasPrefix("  -") else { return nil }
            return line.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init)
        }
    }

    static func subcommands() throws -> [String] {
        let help = try BuiltBinary.run(["--help"]).stdout
        let block = try #require(help.components(separatedBy: "\nSUBCOMMANDS:\n").last)
        return block.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.contains("See '") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    static func tool(_ name: String) throws -> URL {
        guard let path = ChildProcess.which(name) else {
            throw ChildProcess.ToolMissing(program: name)
        }
        return URL(fileURLWithPath: path)
    }

    /// A folder with the generated script in it, `capture` on a `bin/` beside it (a symbolic link
    /// to the binary under test, so the scripts' device query runs it by name), and a few files
    /// to complete: two that a recording may be written to, one it may not, and a folder.
    final class Scratch {
        let url: URL
        init(_ label: String) throws {
            url = try MicrophoneTestSupport.scratchFolder(label)
            let bin = url.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: bin.appendingPathComponent("capture"), withDestinationURL: BuiltBinary.url)
            let files = url.appendingPathComponent("files")
            try FileManager.default.createDirectory(
                at: files.appendingPathComponent("folder"), withIntermediateDirectories: true)
            for name in ["old.mp4", "take.MKV", "notes.txt"] {
                _ = FileManager.default.createFile(atPath: files.appendingPathComponent(name).path, contents: Data())
            }
        }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        var environment: [String: String] {
            ["PATH": path("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        }
        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    // MARK: - Manual page

    @Test func manualRendersWithoutWarningsAndHoldsEveryOption() throws {
        let result = try BuiltBinary.run(["--generate-manual"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let scratch = try Scratch("manual")
        try scratch.write("capture.1", result.stdout)

        let groff = try ChildProcess.run(try Self.tool("groff"), ["-man", "-ww", "-z", scratch.path("capture.1")])
        #expect(groff.status == 0)
        #expect(groff.stderr.isEmpty, "groff warns: \(groff.stderr)")

        let man = try ChildProcess.run(
            try Self.tool("man"), ["-l", scratch.path("capture.1")],
            environment: ["MANWIDTH": "200", "MANPAGER": "cat", "PAGER": "cat", "MAN_KEEP_FORMATTING": ""])
        #expect(man.status == 0, "man: \(man.stderr)")
        // man prints bold and italics with backspaces when not on a terminal: drop them.
        var text = ""
        for character in man.stdout {
            if character == "\u{8}" { _ = text.popLast() } else { text.append(character) }
        }
        #expect(text.count > 5000, "man printed: \(man.stdout.prefix(200)) \(man.stderr)")
        for section in [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "DEVICE NAMES", "EXIT STATUS", "FILES", "ENVIRONMENT",
            "EXAMPLES", "SEE ALSO",
        ] {
            #expect(text.contains("\n\(section)\n"), "no section \(section)")
        }
        #expect(text.contains("capture - list, probe and record cameras and microphones"))
        for word in [
            "PULSE_SERVER", "PIPEWIRE_RUNTIME_DIR", "ffmpeg(1)", "v4l2-ctl(1)", "arecord(1)", ".asoundrc",
            "hw:CARD=PCH,DEV=0", "77     permission denied", "capture record --video test",
        ] {
            #expect(text.contains(word), "the manual misses \(word)")
        }
        // Every subcommand has its subsection, with every option its help shows, as typed.
        let subcommands = try Self.subcommands()
        #expect(subcommands.contains("record"))
        for subcommand in subcommands {
            let start = try #require(text.range(of: "\n   capture \(subcommand)\n"), "no subsection \(subcommand)")
            let end =
                text.range(of: "\n   capture ", range: start.upperBound..<text.endIndex)?.lowerBound
                ?? text.range(of: "\nDEVICE NAMES\n")!.lowerBound
            let subsection = text[start.upperBound..<end]
            // An option's item starts its line, after its short name if it has one ("-h, --help").
            let items = subsection.split(separator: "\n").map { line in
                let text = line.trimmingCharacters(in: .whitespaces)
                return text.hasPrefix("-") && text.dropFirst(2).hasPrefix(", ") ? String(text.dropFirst(4)) : text
            }
            for option in try Self.helpOptions(subcommand) {
                #expect(
                    items.contains { $0 == option || $0.hasPrefix(option + " ") },
                    "\(subcommand): the manual misses \(option)")
            }
        }
        // Hidden options stay hidden.
        #expect(!text.contains("--names"))
    }

    // MARK: - list --names

    @Test func namesAreTheSelectingNamesOfTheJSONList() throws {
        for (scope, key) in [("--video-only", "cameras"), ("--audio-only", "microphones")] {
            let names = try BuiltBinary.run(["list", "--names", scope])
            #expect(names.status == 0)
            let json = try BuiltBinary.run(["list", "--json", scope])
            let devices = try #require(try MicrophoneTestSupport.object(json.stdout)[key] as? [[String: Any]])
            let expected = devices.compactMap { $0["name"] as? String }
            #expect(names.stdout == expected.map { $0 + "\n" }.joined())
            #expect(expected.contains("test"))
        }
        // Both kinds: each name once (`test` is a camera and a microphone).
        let both = try BuiltBinary.run(["list", "--names"]).stdout.split(separator: "\n")
        #expect(both.count == Set(both).count)
        #expect(both.contains("test"))
    }

    // MARK: - bash

    /// Completes each line (the cursor at its end) through the generated function in a
    /// non-interactive bash, with COMP_WORDS split at bash's word breaks as readline splits them;
    /// returns the candidates of each.
    static func bashComplete(_ lines: [String], in scratch: Scratch, environment: [String: String] = [:])
        throws -> [[String]]
    {
        let script = try BuiltBinary.run(["--generate-completion-script", "bash"])
        #expect(script.status == 0)
        try scratch.write("capture.bash", script.stdout)
        var driver = """
            set -u
            # readline's word breaks, which an interactive bash has and this one lacks.
            COMP_WORDBREAKS=$' \\t\\n"\\'><=;|&(:'
            source \(scratch.path("capture.bash"))
            complete -p capture >/dev/null || exit 3
            drive() {
                COMP_LINE=$1
                COMP_POINT=${#1}
                # Split as readline does: at blanks, and ':' and '=' each a word of their own.
                local split=${1//:/ : }
                split=${split//=/ = }
                read -ra COMP_WORDS <<< "$split"
                [[ $1 == *[[:blank:]] || $1 == *[:=] ]] && COMP_WORDS+=("")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMPREPLY=()
                _capture capture "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}" | sort
                echo '--'
            }
            cd \(scratch.path("files"))

            """
        for line in lines { driver += "drive \(BashQuote.quote(line))\n" }
        try scratch.write("drive.bash", driver)
        let bash = try ChildProcess.run(
            try tool("bash"), ["--norc", "--noprofile", scratch.path("drive.bash")],
            environment: scratch.environment.merging(environment) { $1 })
        #expect(bash.status == 0, "bash: \(bash.stderr)")
        #expect(bash.stderr.isEmpty, "bash: \(bash.stderr)")
        let blocks = bash.stdout.components(separatedBy: "--\n").dropLast()
        return blocks.map { $0.split(separator: "\n").map(String.init) }
    }

    @Test func bashCompletesSubcommandsOptionsValuesDevicesAndFiles() throws {
        let scratch = try Scratch("bash")
        let subcommands = try Self.subcommands()
        let recordOptions = try Self.helpOptions("record")
        let videoNames = try BuiltBinary.run(["list", "--names", "--video-only"]).stdout.split(separator: "\n")
        let audioNames = try BuiltBinary.run(["list", "--names", "--audio-only"]).stdout.split(separator: "\n")
        let replies = try Self.bashComplete(
            [
                "capture ", "capture re", "capture record --", "capture record --codec ",
                "capture record --preset very",
                "capture record --audio-codec ", "capture record --video ", "capture record --audio ",
                "capture record --video test ", "capture record --video test --duration 3 fol", "capture probe ",
                "capture help ", "capture list --", "capture record --input-format yuy",
            ], in: scratch)
        try #require(replies.count == 14)
        #expect(replies[0] == (subcommands + ["help"]).sorted())
        #expect(replies[1] == ["record"])
        #expect(replies[2] == recordOptions.sorted())
        #expect(replies[3] == ["copy", "h264", "raw"])
        #expect(replies[4] == ["veryfast", "veryslow"])
        #expect(replies[5] == ["aac", "flac", "opus", "pcm"])
        #expect(replies[6] == videoNames.map(String.init).sorted())
        #expect(replies[7] == audioNames.map(String.init).sorted())
        // OUTPUT: files with a container's extension, in any case, and folders; not notes.txt.
        #expect(replies[8] == ["folder", "old.mp4", "take.MKV"])
        #expect(replies[9] == ["folder"])
        #expect(replies[10] == Set(videoNames + audioNames).map(String.init).sorted())
        #expect(replies[11] == subcommands.sorted())
        #expect(replies[12] == (try Self.helpOptions("list")).sorted())
        #expect(replies[13] == ["yuyv422"])
    }

    /// A PulseAudio source's name holds a colon, where bash splits words: the reply must hold
    /// only what follows it, or bash would write `pulse:pulse:...`.
    @Test func bashCompletesDeviceNamesAcrossColons() throws {
        let server = try MicrophonePulseTests.TestServer()
        defer { server.stop() }
        let oracle = try server.pactl(["list", "sources", "short"]).stdout.split(separator: "\n").map {
            String($0.split(separator: "\t")[1])
        }
        #expect(oracle.contains("capture_test_tone"))
        let scratch = try Scratch("bash-pulse")
        let replies = try Self.bashComplete(
            ["capture record --audio pulse:", "capture record --audio pulse:capture_test_t", "capture probe pul"],
            in: scratch, environment: server.environment)
        try #require(replies.count == 3)
        #expect(replies[0] == oracle.sorted())
        #expect(replies[1] == ["capture_test_tone"])
        let names = try BuiltBinary.run(["list", "--names"], environment: server.environment).stdout
        #expect(replies[2] == names.split(separator: "\n").map(String.init).filter { $0.hasPrefix("pul") }.sorted())
        #expect(replies[2].contains("pulse:capture_test_tone"))
    }

    // MARK: - zsh

    /// Types each line and Tab into an interactive zsh (through zpty) that autoloads the
    /// generated `_capture` from its fpath, and returns what the terminal shows, escapes removed.
    static func zshComplete(_ line: String, in scratch: Scratch) throws -> String {
        let driver = """
            zmodload zsh/zpty
            zpty -b z zsh -f -i
            zpty -w z "PROMPT='> '; fpath=(\(scratch.path("functions")) \\$fpath); autoload -Uz compinit; \
            compinit -u -D; LISTMAX=1000; unsetopt beep; cd \(scratch.path("files"))"
            zpty -wn z \(BashQuote.quote(line))$'\\t'
            sleep 3
            zpty -w z $'\\C-u'"print COMPLETION-END"
            # Read until the marker comes back twice (typed, then printed), at most 30 s.
            out=
            SECONDS=0
            while (( SECONDS < 30 )) && [[ $out != *COMPLETION-END*COMPLETION-END* ]]; do
                if zpty -r -t z chunk; then out+=$chunk; else sleep 0.1; fi
            done
            zpty -d z
            print -r -- "$out"
            """
        try scratch.write("drive.zsh", driver)
        let zsh = try ChildProcess.run(
            try tool("zsh"), ["-f", scratch.path("drive.zsh")], environment: scratch.environment)
        #expect(zsh.status == 0, "zsh: \(zsh.stderr)")
        return zsh.stdout.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[a-zA-Z]", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\r", with: "\n")
    }

    @Test func zshParsesAndCompletes() throws {
        let script = try BuiltBinary.run(["--generate-completion-script", "zsh"])
        #expect(script.status == 0)
        #expect(script.stdout.hasPrefix("#compdef capture\n"))
        let scratch = try Scratch("zsh")
        try FileManager.default.createDirectory(
            atPath: scratch.path("functions"), withIntermediateDirectories: true)
        try scratch.write("functions/_capture", script.stdout)
        let parse = try ChildProcess.run(try Self.tool("zsh"), ["-n", scratch.path("functions/_capture")])
        #expect(parse.status == 0 && parse.stderr.isEmpty, "zsh -n: \(parse.stderr)")

        /// The words of what was typed after the line itself: the listing of candidates.
        func listing(_ line: String) throws -> [String] {
            let screen = try Self.zshComplete(line, in: scratch)
            guard let typed = screen.range(of: line.trimmingCharacters(in: .whitespaces)) else { return [] }
            let after = screen[typed.upperBound...]
            let end = after.range(of: "print COMPLETION-END")?.lowerBound ?? after.endIndex
            return after[..<end].split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        }
        let subcommands = try listing("capture ")
        for name in try Self.subcommands() + ["help"] { #expect(subcommands.contains(name), "zsh: no \(name)") }
        #expect(Set(try listing("capture record --codec ")).isSuperset(of: ["h264", "raw", "copy"]))
        let devices = try listing("capture record --video ")
        let videoNames = try BuiltBinary.run(["list", "--names", "--video-only"]).stdout.split(separator: "\n")
        for name in videoNames { #expect(devices.contains(String(name)), "zsh: no device \(name)") }
        let files = try listing("capture record --video test ")
        #expect(files.contains("old.mp4"))
        #expect(files.contains("take.MKV"))
        #expect(files.contains("folder/"))
        #expect(!files.contains("notes.txt"))
        // A unique candidate is written into the line.
        let screen = try Self.zshComplete("capture record --preset ultra", in: scratch)
        #expect(screen.contains("capture record --preset ultrafast"))
    }

    // MARK: - fish

    @Test func fishParsesAndCompletes() throws {
        let script = try BuiltBinary.run(["--generate-completion-script", "fish"])
        #expect(script.status == 0)
        let scratch = try Scratch("fish")
        try scratch.write("capture.fish", script.stdout)
        let fish = try Self.tool("fish")
        let parse = try ChildProcess.run(fish, ["--no-execute", scratch.path("capture.fish")])
        #expect(parse.status == 0 && parse.stderr.isEmpty, "fish --no-execute: \(parse.stderr)")

        let lines = [
            "capture ", "capture record --codec ", "capture record --video ", "capture record --video test ",
            "capture record --pres", "capture help ",
        ]
        var driver = "source \(scratch.path("capture.fish")); cd \(scratch.path("files"))\n"
        for line in lines { driver += "complete -C \(BashQuote.quote(line)); echo ==\n" }
        try scratch.write("drive.fish", driver)
        let result = try ChildProcess.run(
            fish, ["--no-config", scratch.path("drive.fish")], environment: scratch.environment)
        #expect(result.status == 0, "fish: \(result.stderr)")
        // `complete -C` prints `word<TAB>description`.
        let replies = result.stdout.components(separatedBy: "==\n").dropLast().map { block in
            block.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
        }
        try #require(replies.count == lines.count)
        #expect(replies[0] == (try Self.subcommands() + ["help"]).sorted())
        #expect(replies[1] == ["copy", "h264", "raw"])
        let videoNames = try BuiltBinary.run(["list", "--names", "--video-only"]).stdout.split(separator: "\n")
        #expect(replies[2] == videoNames.map(String.init).sorted())
        #expect(replies[3] == ["folder/", "old.mp4", "take.MKV"])
        #expect(replies[4] == ["--preset"])
        #expect(replies[5] == (try Self.subcommands()).sorted())
    }
}

/// Single quotes for a shell word (bash, zsh and fish all read `'...'` this way when the word
/// holds no quote).
enum BashQuote {
    static func quote(_ word: String) -> String {
        precondition(!word.contains("'"))
        return "'" + word + "'"
    }
}
