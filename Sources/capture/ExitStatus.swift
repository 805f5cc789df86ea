/// The exit statuses of `capture`, in one table: the root help and the manual page print it.
enum ExitStatus {
    static let table: [(code: Int32, meaning: String)] = [
        (0, "success (also a recording stopped by SIGINT, SIGTERM or SIGHUP once its file was finalized)"),
        (1, "other failure"),
        (64, "usage error"),
        (66, "device not found, or an input file (a controls profile) not found"),
        (
            69,
            "the device cannot do what was asked (format, size, rate, channels), or its sound server is not running"
        ),
        (73, "the output exists (without --force) or cannot be created"),
        (
            74,
            "I/O error while recording (device lost or stalled, disk full); the file is finalized up to there"
        ),
        (75, "device busy"),
        (77, "permission denied"),
    ]

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
