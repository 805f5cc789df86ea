import Foundation

/// Runs the built `capture` binary, as a user would, and collects what it prints.
struct BuiltBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

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

    /// Runs `capture arguments...` with `environment` added to ours, and waits for it.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(url, arguments, environment: environment)
    }

    /// Runs any program with `environment` added to ours, and collects what it prints.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
