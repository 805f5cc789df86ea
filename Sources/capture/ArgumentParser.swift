import CaptureCore

/// What an option's value or a positional argument is, so that help, the manual page and the
/// shell completions offer the same things: the generators read it, the parser does not.
///
/// A struct with the list in a field of its own, not an enum with array payloads: the command
/// specs live in static constants for the life of the process, and an enum keeps its case in
/// the spare bits of the array's pointer, where valgrind's leak checker no longer sees a
/// pointer and reports the array as definitely lost.
struct ValueKind: Equatable {
    /// Which devices a device argument takes.
    enum DeviceScope: String {
        case video, audio, any
    }

    /// The kind to switch over; made on demand, never stored.
    enum Shape {
        /// Free text or a number: nothing to offer.
        case text
        /// A file path; the extensions (without the dot) worth offering, all when empty.
        case file(extensions: [String])
        /// One of a fixed list of words.
        case choices([String])
        /// A device name, asked of `capture list --names` when completing.
        case device(DeviceScope)
    }

    private enum Form: Equatable {
        case text, file, choices
        case device(DeviceScope)
    }
    private let form: Form
    private let words: [String]

    static let text = ValueKind(form: .text, words: [])
    static func file(extensions: [String]) -> ValueKind { ValueKind(form: .file, words: extensions) }
    static func choices(_ words: [String]) -> ValueKind { ValueKind(form: .choices, words: words) }
    static func device(_ scope: DeviceScope) -> ValueKind { ValueKind(form: .device(scope), words: []) }

    var shape: Shape {
        switch form {
        case .text: .text
        case .file: .file(extensions: words)
        case .choices: .choices(words)
        case .device(let scope): .device(scope)
        }
    }
}

/// One option of a command: a flag (`--json`) or an option with a value (`--duration <seconds>`).
struct OptionSpec {
    /// Long name with dashes, e.g. `--duration`.
    var name: String
    /// Short name with a dash, e.g. `-h`, if any.
    var short: String?
    /// The value's placeholder (`seconds`); nil for a flag.
    var value: String?
    var help: String
    /// Shown as `(default: ...)` at the end of the help line.
    var defaultValue: String?
    /// Given more than once, every value counts (`ParsedArguments.values`); shown as `...`.
    var repeats = false
    /// What the value is; `.text` for a flag.
    var kind: ValueKind = .text
    /// Parsed but left out of help, the manual page and completions (queries for the scripts).
    var hidden = false
    /// For a flag that may carry a length of time (`--wait [<timeout>]`): its placeholder. The
    /// value is taken from `--wait=90`, or from the next word when that reads as a duration
    /// (`90`, `10m`, `1h30m`); otherwise the flag stands alone. Completions treat it as a flag.
    var optionalValue: String? = nil

    static func flag(_ name: String, short: String? = nil, help: String, hidden: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, help: help, defaultValue: nil, hidden: hidden)
    }
    /// A flag with an optional duration after it, e.g. `--wait [<timeout>]`.
    static func flag(_ name: String, optionalValue: String, help: String, default d: String? = nil) -> OptionSpec {
        OptionSpec(name: name, short: nil, value: nil, help: help, defaultValue: d, optionalValue: optionalValue)
    }
    static func option(
        _ name: String, _ value: String, help: String, default d: String? = nil, repeats: Bool = false,
        kind: ValueKind = .text
    ) -> OptionSpec {
        OptionSpec(name: name, short: nil, value: value, help: help, defaultValue: d, repeats: repeats, kind: kind)
    }

    /// `--duration <seconds>`, `--set <name=value> ...` or `--json`.
    var synopsis: String {
        if let optionalValue { return "\(name) [<\(optionalValue)>]" }
        return value.map { "\(name) <\($0)>" + (repeats ? " ..." : "") } ?? name
    }
}

/// One positional argument, e.g. `<device>`.
struct ArgumentSpec {
    var name: String
    var help: String
    var optional = false
    var kind: ValueKind = .text
}

/// What a command takes and how it describes itself; help text and errors are made from it.
struct CommandSpec {
    var name: String
    var abstract: String
    var discussion: String? = nil
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var subcommands: [CommandSpec] = []
    /// Command lines worth showing in the manual page: the command line and what it does.
    var examples: [(command: String, meaning: String)] = []
    /// The full command path, e.g. `capture list`.
    var path: String { name == "capture" ? name : "capture \(name)" }
    /// The options help, the manual and completions show: hidden ones left out, `--help` added.
    var visibleOptions: [OptionSpec] { options.filter { !$0.hidden } + [Help.helpOption] }
}

/// The command line after parsing: flags given, option values, positionals in order.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: String] = [:]
    /// Every value of each option in the order given, for options that may repeat (`--set`).
    var lists: [String: [String]] = [:]
    /// Every option given a value, with it, in the order of the command line: what options
    /// follow which device (`--video A --video-size 640x480 --video B`).
    var sequence: [(name: String, value: String)] = []
    var positionals: [String] = []
    var helpRequested = false

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name] }
    func values(_ name: String) -> [String] { lists[name] ?? [] }
}

/// A usage error: printed as `Error: ...`, the usage line and a pointer to `--help`; exit 64.
struct UsageError: Error {
    var message: String
    var command: CommandSpec
}

/// Parses `arguments` (without the command names) against `spec`, the way swift-argument-parser
/// does: `--name value`, `--name=value`, `-h`/`--help`, `--` ends options; the last of a repeated
/// option wins (`values` keeps them all, for options that repeat).
///
/// - Throws: `UsageError` for an unknown option, a missing or unexpected value, a missing or
///   extra positional argument.
func parse(_ arguments: [String], as spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var result = ParsedArguments()
    var rest = arguments[...]
    var optionsEnded = false
    while let argument = rest.popFirst() {
        if optionsEnded || !argument.hasPrefix("-") || argument == "-" || isNegativeNumber(argument) {
            result.positionals.append(argument)
            continue
        }
        if argument == "--" {
            optionsEnded = true
            continue
        }
        if argument == "-h" || argument == "--help" {
            result.helpRequested = true
            continue
        }
        let (name, inline) = splitInlineValue(argument)
        guard let option = spec.options.first(where: { $0.name == name || $0.short == name }) else {
            throw UsageError(message: "Unknown option '\(name)'", command: spec)
        }
        if option.value == nil, option.optionalValue != nil {
            result.flags.insert(option.name)
            if let inline {
                result.values[option.name] = inline
            } else if let next = rest.first, DurationValue.seconds(next) != nil {
                result.values[option.name] = next
                rest = rest.dropFirst()
            }
        } else if option.value == nil {
            if inline != nil {
                throw UsageError(message: "The flag '\(option.name)' does not take a value", command: spec)
            }
            result.flags.insert(option.name)
        } else if let value = inline ?? rest.first.flatMap({ !$0.hasPrefix("-") || isNegativeNumber($0) ? $0 : nil }) {
            if inline == nil { rest = rest.dropFirst() }
            result.values[option.name] = value
            result.lists[option.name, default: []].append(value)
            result.sequence.append((option.name, value))
        } else {
            throw UsageError(message: "Missing value for '\(option.synopsis)'", command: spec)
        }
    }
    if result.helpRequested { return result }
    let required = spec.arguments.filter { !$0.optional }.count
    if result.positionals.count < required {
        let missing = spec.arguments[result.positionals.count]
        throw UsageError(message: "Missing expected argument '<\(missing.name)>'", command: spec)
    }
    if result.positionals.count > spec.arguments.count {
        let extra = result.positionals[spec.arguments.count]
        throw UsageError(message: "Unexpected argument '\(extra)'", command: spec)
    }
    return result
}

private func splitInlineValue(_ argument: String) -> (String, String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
}

private func isNegativeNumber(_ text: String) -> Bool {
    text.count > 1 && text.hasPrefix("-") && Double(text.dropFirst()) != nil
}

extension ParsedArguments {
    /// The value of option `name` as a number within `range`; nil when the option is not given.
    ///
    /// - Throws: `UsageError` for `command` naming the option and the range.
    func number<T: LosslessStringConvertible & Comparable>(
        _ name: String, _ range: ClosedRange<T>, command: CommandSpec
    ) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        guard let number = T(text), range.contains(number) else {
            throw UsageError(
                message: "\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                command: command)
        }
        return number
    }
}
