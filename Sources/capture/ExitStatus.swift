import CaptureCore

/// The exit statuses of `capture` (`ExitCode`) as the root help prints them.
enum ExitStatus {
    /// The table as the root help shows it: the code in four columns, the meaning wrapped beneath.
    static var helpText: String {
        var lines = ["EXIT STATUS:"]
        for exit in ExitCode.allCases {
            let code = String(exit.rawValue)
            let label = "  \(code)" + String(repeating: " ", count: 4 - code.count)
            let wrapped = Help.wrap(exit.meaning, width: 80 - 6)
            lines.append(label + wrapped[0])
            lines += wrapped.dropFirst().map { String(repeating: " ", count: 6) + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
