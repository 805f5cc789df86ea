import Foundation

/// Helpers for the microphone end-to-end tests: a scratch folder, and the independent tools
/// (arecord, pactl, pulseaudio) whose answers the tests compare against.
enum MicrophoneTestSupport {
    /// A fresh folder under the temporary directory, removed by the caller.
    static func scratchFolder(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("capture-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The full path of a program on PATH, or nil.
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a tool to completion with `environment` added to ours.
    ///
    /// Spawned and reaped here with posix_spawn and waitpid: Foundation's Process can miss the
    /// exit of a child that ends within milliseconds (pactl against a socket not yet there) and
    /// then waits until some other child exits.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> BuiltBinary.Result
    {
        let out = try Pipe.make()
        let err = try Pipe.make()
        let pid = try spawn(program, arguments, environment: environment, stdout: out.write, stderr: err.write)
        close(out.write)
        close(err.write)
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { errData = readAll(err.read) }
        let outData = readAll(out.read)
        group.wait()
        return BuiltBinary.Result(
            status: wait(pid), stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `program` (looked up on PATH) with stdin from /dev/null and stdout/stderr to the
    /// given descriptors (or /dev/null when -1).
    static func spawn(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], stdout: Int32 = -1,
        stderr: Int32 = -1
    ) throws -> pid_t {
        guard let path = which(program) else { throw ToolMissing(program: program) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (source, target) in [(stdout, Int32(1)), (stderr, Int32(2))] {
            if source >= 0 {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard result == 0 else { throw SpawnFailed(program: program, code: result) }
        return pid
    }

    /// Waits for a spawned child and returns its exit status (128 + signal when killed).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func readAll(_ fd: Int32) -> Data {
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    private enum Pipe {
        static func make() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw SpawnFailed(program: "pipe", code: errno) }
            // Only the child's dup2 copies may stay open in it, or reads never see EOF.
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
    }

    struct SpawnFailed: Error {
        var program: String
        var code: Int32
    }

    /// A test tool is not installed: `make deps` installs it.
    struct ToolMissing: Error, CustomStringConvertible {
        var program: String
        var description: String { "\(program) is not installed (make deps installs the test tools)" }
    }

    /// The JSON object a command printed.
    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw NotAnObject(text: text)
        }
        return object
    }

    struct NotAnObject: Error {
        var text: String
    }
}
