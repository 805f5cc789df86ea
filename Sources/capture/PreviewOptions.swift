import CaptureCore
import FoundationEssentials

/// The options that shape a preview server: `capture record --serve` and `capture serve`.
enum PreviewOptions {
    /// The options beside the address.
    static let shaping = ["--serve-rate", "--serve-size", "--serve-token", "--serve-token-file"]

    /// The specs of `shaping`, the same in both commands.
    static let specs: [OptionSpec] = [
        .option("--serve-rate", "fps", help: "Pictures per second the preview serves at most (0.1-60).", default: "5"),
        .option(
            "--serve-size", "W[xH]",
            help: "Largest picture the preview encodes, shape kept (an MJPEG camera's own pictures pass as they are).",
            default: "640 wide"),
        .option(
            "--serve-token", "token",
            help: "A secret every preview request must carry (Bearer header or ?token=); needed beyond 127.0.0.1."),
        .option(
            "--serve-token-file", "file", help: "Read --serve-token from this file (its first line).",
            kind: .file(extensions: [])),
    ]

    /// The options as `PreviewSettings` for `address`, which `addressOption` gave.
    static func settings(_ address: String, addressOption: String, _ arguments: ParsedArguments, command: CommandSpec)
        throws -> PreviewSettings
    {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: command) }
        guard let (host, port) = PreviewSettings.hostAndPort(address) else {
            throw fail(
                "\(addressOption) takes HOST:PORT with an IPv4 address, e.g. 127.0.0.1:8080 or :8080, not '\(address)'")
        }
        var settings = PreviewSettings(host: host, port: port)
        if let rate = try arguments.number("--serve-rate", 0.1...60.0, command: command) { settings.rate = rate }
        if let text = arguments.value("--serve-size") {
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let width = Int(parts[0]), (16...8192).contains(width),
                parts.count == 1 || Int(parts[1]).map({ (16...8192).contains($0) }) == true
            else {
                throw fail(
                    "--serve-size takes a width or WIDTHxHEIGHT from 16 to 8192, e.g. 640 or 640x360, not '\(text)'")
            }
            settings.maxWidth = width
            settings.maxHeight = parts.count == 2 ? Int(parts[1]) : nil
        }
        settings.token = arguments.value("--serve-token")
        if let file = arguments.value("--serve-token-file") {
            if settings.token != nil { throw fail("--serve-token and --serve-token-file: give one") }
            settings.token = try token(file: file)
        }
        return settings
    }

    /// The first line of `file`, without its line end.
    ///
    /// - Throws: `CaptureError.fileNotFound` (66) when it cannot be read or holds no token.
    static func token(file: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CaptureError.fileNotFound(path: file, reason: "cannot read the preview token file")
        }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
        guard let line, !line.isEmpty else {
            throw CaptureError.fileNotFound(path: file, reason: "the preview token file is empty")
        }
        return line
    }

    /// A library error as `capture serve` words it: the address is its `--listen`.
    static func line(_ error: CaptureError, listen: Bool) -> String {
        error.description { option, value in
            option == .serve && listen ? "--listen" : OptionNames.render(option, value: value)
        }
    }
}

extension RecordOptions {
    /// The preview server (`--serve` and the options that shape it); the others need `--serve`.
    func readPreview(into request: inout RecordingRequest) throws {
        guard let address = arguments.value("--serve") else {
            if let given = PreviewOptions.shaping.first(where: { arguments.value($0) != nil }) {
                throw fail("\(given) needs --serve")
            }
            return
        }
        request.preview = try PreviewOptions.settings(address, addressOption: "--serve", arguments, command: command)
    }
}
