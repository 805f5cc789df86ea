import CaptureCore

/// `capture --generate-manual`: the manual page, in roff for section 1, made from the command
/// specs and `ManualText`, so that it cannot drift from what the parser takes.
enum ManualPage {
    /// The whole page for `root` and its subcommands.
    static func render(_ root: CommandSpec, version: String) -> String {
        var out: [String] = []
        out.append(#".TH CAPTURE 1 "" "capture \#(version)" "User Commands""#)
        // No hyphenation: option names and device names split at a hyphen read as something else.
        out.append(".nh")
        out.append(".SH NAME")
        out.append("capture \\- " + escape(lowercasedFirst(root.abstract.dropLastPeriod)))
        out.append(".SH SYNOPSIS")
        for (i, sub) in root.subcommands.enumerated() {
            if i > 0 { out.append(".br") }
            out.append(synopsis(sub))
        }
        out.append(".br")
        out.append("\\fBcapture\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR")
        out.append(".SH DESCRIPTION")
        out.append(escape(ManualText.description))
        for option in root.visibleOptions {
            out += item(option)
        }
        out.append(".SH COMMANDS")
        for sub in root.subcommands {
            out += command(sub)
        }
        out.append(".SH DEVICE NAMES")
        out.append("Every command takes devices the same way:")
        for (form, meaning) in ManualText.deviceNames {
            out += [".TP", bold(form), escape(meaning)]
        }
        out += [".PP", escape(ManualText.deviceNamesNote)]
        out.append(".SH EXIT STATUS")
        for exit in ExitCode.allCases {
            out += [".TP", ".B \(exit.rawValue)", escape(exit.meaning)]
        }
        out.append(".SH FILES")
        for (path, meaning) in ManualText.files {
            out += [".TP", italic(path), escape(meaning)]
        }
        out.append(".SH ENVIRONMENT")
        for (name, meaning) in ManualText.environment {
            out += [".TP", ".B \(escape(name))", escape(meaning)]
        }
        out.append(".SH EXAMPLES")
        for sub in root.subcommands {
            for (command, meaning) in sub.examples {
                out += [".PP", escape(meaning), ".PP", ".RS 4", ".EX", escape(command), ".EE", ".RE"]
            }
        }
        out.append(".SH SEE ALSO")
        out.append(
            ManualText.seeAlso.enumerated().map { i, page in
                ".BR \(escape(page.name)) (\(page.section))" + (i < ManualText.seeAlso.count - 1 ? "," : "")
            }.joined(separator: "\n"))
        return out.joined(separator: "\n") + "\n"
    }

    /// `capture record [--video device] ... output`, in bold and italics.
    private static func synopsis(_ spec: CommandSpec) -> String {
        var parts = ["\\fB\(escape(spec.path))\\fR"]
        for option in spec.options where !option.hidden {
            let value =
                (option.value.map { " \\fI\(escape($0))\\fR" } ?? "")
                + (option.optionalValue.map { " [\\fI\(escape($0))\\fR]" } ?? "")
            parts.append("[\\fB\(escape(option.name))\\fR\(value)\(option.repeats ? " ..." : "")]")
        }
        for argument in spec.arguments {
            let name = "\\fI\(escape(argument.name))\\fR"
            parts.append(argument.optional ? "[\(name)]" : name)
        }
        return parts.joined(separator: " ")
    }

    /// A subsection per subcommand: what it does, its arguments and every option.
    private static func command(_ spec: CommandSpec) -> [String] {
        var out = [#".SS "\#(escape(spec.path))""#, escape(spec.abstract)]
        if let discussion = spec.discussion {
            out += [".PP", escape(discussion)]
        }
        for argument in spec.arguments {
            out += [".TP", italic(argument.name), escape(argument.help + valuesSentence(argument.kind))]
        }
        for option in spec.visibleOptions {
            out += item(option)
        }
        return out
    }

    private static func item(_ option: OptionSpec) -> [String] {
        var label = option.short.map { "\\fB\(escape($0))\\fR, " } ?? ""
        label += "\\fB\(escape(option.name))\\fR"
        if let value = option.value { label += " \\fI\(escape(value))\\fR" }
        if let value = option.optionalValue { label += " [\\fI\(escape(value))\\fR]" }
        var help = option.help
        if let d = option.defaultValue { help += " Default: \(d)." }
        help += valuesSentence(option.kind)
        return [".TP", label, escape(help)]
    }

    /// " One of: h264, raw, copy." for a short list of choices; a longer one is summarized.
    private static func valuesSentence(_ kind: ValueKind) -> String {
        switch kind.shape {
        case .choices(let words) where words.count <= 12:
            return " One of: \(words.joined(separator: ", "))."
        case .choices(let words):
            return
                " One of the \(words.count) names this build takes, among them \(words.prefix(6).joined(separator: ", "))."
        case .file(let extensions) where !extensions.isEmpty:
            return " Extensions: \(extensions.map { "." + $0 }.joined(separator: " "))."
        default:
            return ""
        }
    }

    private static func bold(_ text: String) -> String { "\\fB\(escape(text))\\fR" }
    private static func italic(_ text: String) -> String { "\\fI\(escape(text))\\fR" }

    private static func lowercasedFirst(_ text: String) -> String {
        text.prefix(1).lowercased() + text.dropFirst()
    }

    /// Text made safe for roff: a backslash printed as one, dashes as the minus sign options are
    /// typed with (so a copied option works), and a line never starting with a control character.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            default: result.append(character)
            }
        }
        return result.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}

extension String {
    fileprivate var dropLastPeriod: String { hasSuffix(".") ? String(dropLast()) : self }
}
