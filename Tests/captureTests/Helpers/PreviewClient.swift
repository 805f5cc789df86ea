import Foundation
import Testing

/// The preview server's oracle: Tests/Preview/preview_client.py, a Python client written from
/// HTTP's and JPEG's rules, run against a recording's `--serve` address.
enum PreviewClient {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Preview/preview_client.py").standardized.path

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// What a check printed: one JSON object.
    struct Reply: Sendable {
        let text: String
        var json: [String: Any] { (try? PreviewClient.object(text)) ?? [:] }
        subscript(key: String) -> Any? { json[key] }
    }

    /// Runs one of the client's checks to its end.
    ///
    /// - Returns: the JSON object it printed.
    /// - Throws: `Failed` with the client's own line when a check failed.
    @discardableResult
    static func run(_ arguments: [String]) throws -> Reply {
        let result = try ChildProcess.run("python3", [script] + arguments)
        guard result.status == 0 else { throw Failed(description: result.stderr) }
        return Reply(text: result.stdout)
    }

    /// Starts one of the client's checks in the background, its output in `scratch`.
    static func start(_ arguments: [String], in scratch: RecordScratch, name: String) throws -> ChildProcess {
        try ChildProcess(
            "python3", [script] + arguments, stdout: .file(scratch.path("\(name).stdout")),
            stderr: .file(scratch.path("\(name).stderr")))
    }

    /// The JSON object a background check printed, once it has ended.
    static func output(of child: ChildProcess, timeout: TimeInterval = 30) throws -> Reply {
        guard let exit = child.wait(timeout: timeout) else { throw Failed(description: "the client did not end") }
        let text = (try? String(contentsOfFile: child.stdoutPath ?? "", encoding: .utf8)) ?? ""
        guard exit.status == 0 else {
            throw Failed(description: (try? String(contentsOfFile: child.stderrPath ?? "", encoding: .utf8)) ?? "")
        }
        return Reply(text: text)
    }

    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failed(description: "no JSON object in: \(text)")
        }
        return object
    }

    /// A TCP port nothing listens on now: the kernel's choice for a socket bound to port 0.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let port = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic -> Int in
                guard bind(fd, generic, length) == 0, getsockname(fd, generic, &length) == 0 else { return 0 }
                return Int(UInt16(bigEndian: pointer.pointee.sin_port))
            }
        }
        guard port > 0 else { throw Failed(description: "no free port") }
        return port
    }

    /// Waits until `/status.json` at `base` answers with the recording under way.
    static func waitUntilRecording(_ base: String, timeout: TimeInterval = 20, bearer: String? = nil) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let reply = try? run(["get", "\(base)/status.json"] + (bearer.map { ["--bearer", $0] } ?? []))
            if let status = reply?["json"] as? [String: Any], status["state"] as? String == "recording",
                (status["frames"] as? Int ?? 0) > 0
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw Failed(description: "\(base) did not answer with a recording under way within \(timeout) s")
    }
}
