import Foundation

/// A program an end-to-end test runs, the built `capture` or an oracle (ffprobe, ffmpeg,
/// arecord, pactl, pulseaudio ...): the one way the tests start a process.
///
/// Spawned with posix_spawn and reaped with waitpid: Foundation's Process can miss the exit of a
/// child that ends within milliseconds (pactl against a socket not yet there) and then waits until
/// some other child exits. The child reads /dev/null and starts with no signal blocked and the
/// stop signals at their defaults: the test runner's threads may block or ignore them, and a child
/// inherits both. A child still running when its object goes is killed (SIGKILL), with its group
/// when it leads one.
///
/// Thread-safe: `wait` may be called from any thread; the first to see the exit records it.
final class ChildProcess: @unchecked Sendable {
    /// What a program that ran to its end printed, and its exit status (128 + N when signal N
    /// killed it, as a shell reports it).
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// How a process ended: an exit status, or the signal that killed it.
    struct Exit: Equatable, Sendable, CustomStringConvertible {
        var status: Int32?
        var signal: Int32?
        var description: String { status.map { "exit \($0)" } ?? "killed by signal \(signal ?? 0)" }
        /// The status as a shell reports it: the exit status, or 128 + the signal.
        var shellStatus: Int32 { status ?? 128 + (signal ?? 0) }
    }

    /// Where the child's stdout or stderr goes.
    enum Output {
        /// Discarded (/dev/null).
        case null
        /// A file, created or truncated; readable while the child runs and after a kill.
        case file(String)
        /// An open descriptor of ours, duplicated into the child.
        case descriptor(Int32)
    }

    /// A program that is not installed: `make deps` installs the test tools.
    struct ToolMissing: Error, CustomStringConvertible {
        var program: String
        var description: String { "\(program) is not installed (make deps installs the test tools)" }
    }

    struct SpawnFailed: Error {
        var program: String
        var code: Int32
    }

    /// Held while a child is spawned and while a pipe is made and marked close-on-exec (pipe2
    /// is not available to Swift here), so that no child inherits a pipe of another test.
    private static let spawnLock = NSLock()

    let pid: pid_t
    let started: Date
    /// The files stdout and stderr go to, when they go to files.
    let stdoutPath: String?
    let stderrPath: String?
    private let leadsGroup: Bool
    /// Set once by `wait`, under `lock`.
    private var exit: Exit?
    private let lock = NSLock()

    /// Starts `program arguments...`.
    ///
    /// - Parameters:
    ///   - program: a path, or a name looked up on `PATH`.
    ///   - environment: added to ours; with `inheritEnvironment` false, the child's whole
    ///     environment.
    ///   - newProcessGroup: the child leads a group of its own, as a shell's job does: a test then
    ///     signals the whole group the way a terminal's Ctrl-C does, and tests running in parallel
    ///     cannot signal each other's children.
    /// - Throws: `ToolMissing` when `program` is not on `PATH`; `SpawnFailed` with posix_spawn's
    ///   error.
    init(
        _ program: String, _ arguments: [String], environment: [String: String] = [:],
        inheritEnvironment: Bool = true, stdout: Output = .null, stderr: Output = .null,
        newProcessGroup: Bool = false
    ) throws {
        let path: String
        if program.contains("/") {
            path = program
        } else if let found = Self.which(program) {
            path = found
        } else {
            throw ToolMissing(program: program)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (output, target) in [(stdout, Int32(1)), (stderr, Int32(2))] {
            switch output {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let file):
                posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let variables =
            inheritEnvironment
            ? ProcessInfo.processInfo.environment.merging(environment) { $1 } : environment
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let code = Self.spawnLock.withLock { posix_spawn(&pid, path, &actions, &attributes, argv, envp) }
        guard code == 0 else { throw SpawnFailed(program: program, code: code) }
        self.pid = pid
        started = Date()
        leadsGroup = newProcessGroup
        if case .file(let file) = stdout { stdoutPath = file } else { stdoutPath = nil }
        if case .file(let file) = stderr { stderrPath = file } else { stderrPath = nil }
    }

    deinit {
        if lock.withLock({ exit }) == nil {
            kill(leadsGroup ? -pid : pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// Runs `program arguments...` to its end and collects what it prints; see `init` for the
    /// parameters and errors.
    static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:],
        inheritEnvironment: Bool = true
    ) throws -> Result {
        let out = try Pipe()
        let err = try Pipe()
        let child: ChildProcess
        do {
            child = try ChildProcess(
                program, arguments, environment: environment, inheritEnvironment: inheritEnvironment,
                stdout: .descriptor(out.write), stderr: .descriptor(err.write))
        } catch {
            for fd in [out.read, out.write, err.read, err.write] { close(fd) }
            throw error
        }
        close(out.write)
        close(err.write)
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { errData = readAll(err.read) }
        let outData = readAll(out.read)
        group.wait()
        return Result(
            status: child.wait().shellStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// `run` for a program given by its URL.
    static func run(
        _ program: URL, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Result {
        try run(program.path, arguments, environment: environment)
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

    /// Seconds since the process was started.
    var elapsed: TimeInterval { Date().timeIntervalSince(started) }

    /// Sleeps until `seconds` after the start.
    func sleep(untilElapsed seconds: TimeInterval) {
        let left = seconds - elapsed
        if left > 0 { Thread.sleep(forTimeInterval: left) }
    }

    /// Sends `signal` to the process.
    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Sends `signal` to the process's whole group, as a terminal does (`newProcessGroup`).
    func signalGroup(_ signal: Int32) { kill(-pid, signal) }

    /// Waits for the process to end.
    @discardableResult
    func wait() -> Exit {
        lock.withLock {
            if let exit { return exit }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return record(status)
        }
    }

    /// Waits up to `timeout` seconds for the process to end, polling every 10 ms; nil if it is
    /// still running then (it is left running: deinit kills it).
    @discardableResult
    func wait(timeout: TimeInterval) -> Exit? {
        lock.withLock {
            if let exit { return exit }
            let deadline = Date().addingTimeInterval(timeout)
            var status: Int32 = 0
            while true {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid { break }
                if result < 0 && errno != EINTR { return nil }
                if Date() >= deadline { return nil }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return record(status)
        }
    }

    /// Called under `lock` with waitpid's status.
    private func record(_ status: Int32) -> Exit {
        let signal = status & 0x7f
        let ended = signal == 0 ? Exit(status: (status >> 8) & 0xff, signal: nil) : Exit(status: nil, signal: signal)
        exit = ended
        return ended
    }

    /// What the process wrote to its stdout / stderr file so far ("" when it is not a file).
    var stdout: String { Self.text(stdoutPath) }
    var stderr: String { Self.text(stderrPath) }

    private static func text(_ path: String?) -> String {
        guard let path else { return "" }
        return String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
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

    /// A pipe whose ends close on exec: only the child's dup2 copies may stay open in a child, or
    /// reads never see the end.
    private struct Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var fds: [Int32] = [0, 0]
            // Under the spawn lock: no child another test spawns may inherit them before they are
            // marked.
            try ChildProcess.spawnLock.withLock {
                guard pipe(&fds) == 0 else { throw SpawnFailed(program: "pipe", code: errno) }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            }
            (read, write) = (fds[0], fds[1])
        }
    }
}
