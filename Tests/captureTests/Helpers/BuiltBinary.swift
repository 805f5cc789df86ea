import Foundation

/// The built `capture` binary, run as a user would through `ChildProcess`.
enum BuiltBinary {
    /// The binary under test: `$CAPTURE` if set, else `capture` beside the test bundle, which
    /// SwiftPM builds into the same products folder.
    static let url: URL = {
        if let path = ProcessInfo.processInfo.environment["CAPTURE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        // On Linux the test bundle is `.build/debug/capturePackageTests.xctest`, a file.
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("capture").path),
            folder.path != "/"
        {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("capture")
    }()

    /// The binary's path.
    static var path: String { url.path }

    /// Runs `capture arguments...` with `environment` added to ours, to its end.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(path, arguments, environment: environment)
    }

    /// Runs `capture arguments...` at the lowest CPU priority (`nice -n 19`), to its end: for
    /// CPU-heavy cases that run beside the real-time ones and must not slow them down.
    static func runNiced(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run("nice", ["-n", "19", path] + arguments)
    }
}
