import CaptureCore
import FoundationEssentials
import Glibc

/// A subcommand: parsed, validated in `init`, then run.
protocol Command {
    static var spec: CommandSpec { get }
    /// Validates the parsed command line. Throws `UsageError` (exit 64) or `CaptureError`.
    init(_ arguments: ParsedArguments) throws
    /// Does the work; returns the exit status.
    func run() throws -> Int32
}

let toolVersion = "0.1.0"

@main
enum Capture {
    static var commands: [any Command.Type] {
        [
            ListCommand.self, ProbeCommand.self, ControlsCommand.self, RecordCommand.self, SnapshotCommand.self,
            ServeCommand.self,
            MeterCommand.self,
        ]
    }

    static var spec: CommandSpec {
        CommandSpec(
            name: "capture",
            abstract: "List, probe and record cameras and microphones.",
            discussion: ExitStatus.helpText,
            options: [
                .flag("--version", help: "Show the version of capture and of the libraries it uses."),
                .flag("--generate-manual", help: "Print the manual page, in roff for section 1.", hidden: true),
                OptionSpec(
                    name: "--generate-completion-script", value: "shell",
                    help: "Print the completion script for bash, zsh or fish.",
                    kind: .choices(["bash", "zsh", "fish"]),
                    hidden: true),
            ],
            subcommands: commands.map { $0.spec }
        )
    }

    static func main() {
        var status = run(Array(CommandLine.arguments.dropFirst()))
        // A full disk or a closed pipe on stdout fails the command rather than passing silently.
        if status == 0, let problem = standardOutputFailure() {
            printError("Error: stdout: writing failed: \(problem)\n")
            status = ExitCode.failure.rawValue
        }
        flushOutputStreams()
        exit(status)
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            printError(Help.text(spec))
            return ExitCode.usage.rawValue
        }
        if first == "--version" {
            print(versionText())
            return 0
        }
        if first == "--generate-manual" || first == "--generate-completion-script" {
            return generate(Array(arguments))
        }
        if first == "-h" || first == "--help" {
            print(Help.text(spec), terminator: "")
            return 0
        }
        if first == "help" {
            guard let name = arguments.dropFirst().first else {
                print(Help.text(spec), terminator: "")
                return 0
            }
            guard let command = commands.first(where: { $0.spec.name == name }) else {
                return usageFailure(UsageError(message: "Unknown subcommand '\(name)'", command: spec))
            }
            print(Help.text(command.spec), terminator: "")
            return 0
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            let what = first.hasPrefix("-") ? "option" : "subcommand"
            return usageFailure(UsageError(message: "Unknown \(what) '\(first)'", command: spec))
        }
        do {
            let parsed = try parse(Array(arguments.dropFirst()), as: command.spec)
            if parsed.helpRequested {
                print(Help.text(command.spec), terminator: "")
                return 0
            }
            LibraryLog.shared.install(verbose: parsed.flag("--verbose"))
            return try command.init(parsed).run()
        } catch let error as UsageError {
            return usageFailure(error)
        } catch let error as CaptureError {
            switch error {
            case .usage, .plan:
                return usageFailure(UsageError(message: error.line, command: command.spec))
            default:
                printError("Error: \(error.line)\n")
                return error.exitCode
            }
        } catch {
            printError("Error: \(error)\n")
            return ExitCode.failure.rawValue
        }
    }

    /// `--generate-manual` and `--generate-completion-script SHELL`: made from `spec`, so a
    /// subcommand added to `commands` is in the manual and the completions without more ado.
    static func generate(_ arguments: [String]) -> Int32 {
        do throws(UsageError) {
            let parsed = try parse(
                arguments, as: CommandSpec(name: "capture", abstract: spec.abstract, options: spec.options))
            if parsed.flag("--generate-manual") {
                print(ManualPage.render(spec, version: toolVersion), terminator: "")
                return 0
            }
            switch parsed.value("--generate-completion-script") {
            case "bash": print(BashCompletion.render(spec), terminator: "")
            case "zsh": print(ZshCompletion.render(spec), terminator: "")
            case "fish": print(FishCompletion.render(spec), terminator: "")
            case let other:
                throw UsageError(
                    message: "--generate-completion-script takes bash, zsh or fish, not '\(other ?? "")'", command: spec
                )
            }
            return 0
        } catch {
            return usageFailure(UsageError(message: error.message, command: spec))
        }
    }

    static func versionText() -> String {
        var lines = ["capture \(toolVersion)", "FFmpeg \(LibraryVersions.ffmpeg)"]
        lines += LibraryVersions.libraries.map { "\($0.name) \($0.version)" }
        return lines.joined(separator: "\n")
    }

    static func usageFailure(_ error: UsageError) -> Int32 {
        printError(Help.usageError(error))
        return ExitCode.usage.rawValue
    }
}

/// Writes to stderr unbuffered, so errors show even if the process dies next; a stderr nobody
/// reads any more costs the text only (`StandardError`).
func printError(_ text: String) {
    StandardError.write(text)
}

extension OptionSpec {
    static let verbose = OptionSpec.flag("--verbose", help: "Show what FFmpeg and ALSA log.")
    static let json = OptionSpec.flag("--json", help: "Print JSON instead of text.")
}
