/// Help and usage text shaped like swift-argument-parser's: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
/// SUBCOMMANDS blocks, option help ending in `(default: ...)`.
enum Help {
    static let helpOption = OptionSpec.flag("--help", short: "-h", help: "Show help information.")

    /// `capture record [--video <device>] ... <output>`
    static func usage(_ spec: CommandSpec) -> String {
        if !spec.subcommands.isEmpty { return "\(spec.path) <subcommand>" }
        var parts = [spec.path]
        parts += spec.options.filter { !$0.hidden }.map { "[\($0.synopsis)]" }
        parts += spec.arguments.map { $0.optional ? "[<\($0.name)>]" : "<\($0.name)>" }
        return parts.joined(separator: " ")
    }

    static func text(_ spec: CommandSpec) -> String {
        var out = wrap("OVERVIEW: \(spec.abstract)", width: 80).joined(separator: "\n") + "\n"
        if let discussion = spec.discussion {
            // Prose is wrapped to 80 columns; indented lines (tables) are kept as written.
            let lines = discussion.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
                line.hasPrefix(" ") || line.isEmpty ? [String(line)] : wrap(String(line), width: 80)
            }
            out += "\n" + lines.joined(separator: "\n") + "\n"
        }
        out += "\nUSAGE: \(usage(spec))\n"
        if !spec.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in spec.arguments { out += row("<\(argument.name)>", argument.help) }
        }
        out += "\nOPTIONS:\n"
        for option in spec.visibleOptions {
            var label = option.short.map { "\($0), " } ?? ""
            label += option.synopsis
            var help = option.help
            if let d = option.defaultValue { help += " (default: \(d))" }
            out += row(label, help)
        }
        if !spec.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for sub in spec.subcommands { out += row(sub.name, sub.abstract) }
            out += "\n  See '\(spec.path) help <subcommand>' for detailed help.\n"
        }
        return out
    }

    /// The three stderr lines of a usage error.
    static func usageError(_ error: UsageError) -> String {
        "Error: \(error.message)\nUsage: \(usage(error.command))\n"
            + "  See '\(error.command.path) --help' for more information.\n"
    }

    /// A two-column row: the label padded to 24 columns, the help wrapped to 80 columns beneath.
    private static func row(_ label: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: 26)
        let lines = wrap(help, width: 80 - indent.count)
        var first = "  " + label
        if first.count >= indent.count - 1 {
            first += "\n" + indent
        } else {
            first += String(repeating: " ", count: indent.count - first.count)
        }
        return first + lines.joined(separator: "\n" + indent) + "\n"
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        lines.append(current)
        return lines
    }
}
