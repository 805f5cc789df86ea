import CaptureCore

/// The exit statuses of `capture` (`ExitCode`) as a table: the root help and the manual page print it.
enum ExitStatus {
    static let table: [(code: Int32, meaning: String)] = ExitCode.allCases.map { ($0.rawValue, $0.meaning) }

    /// The table as the root help shows it: the code in four columns, the meaning wrapped beneath.
    static var helpText: String {
        var lines = ["EXIT STATUS:"]
        for (code, meaning) in table {
            let label = "  \(code)" + String(repeating: " ", count: 4 - String(code).count)
            let wrapped = Help.wrap(meaning, width: 80 - 6)
            lines.append(label + wrapped[0])
            lines += wrapped.dropFirst().map { String(repeating: " ", count: 6) + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
