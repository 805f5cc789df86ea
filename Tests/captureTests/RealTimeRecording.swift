import Foundation
import Synchronization

/// Runs `body` on a thread of its own and suspends until it returns.
///
/// Swift Testing runs tests on a pool about as wide as the machine has cores, and most tests
/// block a pool thread while a child runs; a real-time step (signal at 4 s) scheduled on that pool
/// could wake many seconds late. A thread of its own keeps the timing honest, and the suspended
/// test frees its pool thread for the others meanwhile.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Lets at most four real-time recordings run at once, their starts 0.3 s apart.
///
/// Swift Testing starts every case together; nine 640x480 H.264 recordings of the paced test
/// source take about two cores, which is all a small machine has: the paced sources then fall
/// behind the wall clock and the cases measure the machine, not capture. Four at a time leave
/// room for the rest of the suite; spaced starts keep FFmpeg's start-ups from piling up.
enum RealTimeSlots {
    private struct State {
        var free = 4
        var waiting: [CheckedContinuation<Void, Never>] = []
        var lastStart = Date.distantPast
    }
    private static let state = Mutex(State())

    /// Runs `body` once a slot is free, then frees the slot.
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private static func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
        let delay = state.withLock { state in
            let start = max(Date(), state.lastStart.addingTimeInterval(0.3))
            state.lastStart = start
            return start.timeIntervalSinceNow
        }
        if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
    }

    private static func release() {
        let next = state.withLock { state in
            if state.waiting.isEmpty {
                state.free += 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// The built `capture` running in its own process group, as a shell starts a job: the tests send
/// signals to the whole group the way a terminal's Ctrl-C does, and tests running in parallel
/// cannot signal each other's children.
///
/// stdout and stderr go to files in the test's scratch folder, so a chatty child never blocks on
/// a pipe and the output can be read after a kill. The group is killed with SIGKILL on deinit in
/// case a test ends early.
final class RecordingProcess: @unchecked Sendable {
    let pid: pid_t
    let started: Date
    let stdoutPath: String
    let stderrPath: String
    /// Set once by `wait`, under `lock`.
    private var exit: Exit?
    private let lock = NSLock()

    /// How the process ended: an exit status, or the signal that killed it.
    struct Exit: Equatable, CustomStringConvertible {
        var status: Int32?
        var signal: Int32?
        var description: String { status.map { "exit \($0)" } ?? "killed by signal \(signal ?? 0)" }
    }

    /// Starts `program arguments...` (default: the built capture) with stdin from /dev/null.
    ///
    /// posix_spawn with `POSIX_SPAWN_SETPGROUP` puts the child at the head of a new group; the
    /// signal mask and the dispositions of the stop signals are reset, since the test runner's
    /// threads may block or ignore them and a child inherits both.
    init(
        _ arguments: [String], program: String = BuiltBinary.url.path, in scratch: RecordScratch,
        name: String = "capture"
    )
        throws
    {
        stdoutPath = scratch.path("\(name).stdout")
        stderrPath = scratch.path("\(name).stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard code == 0 else { throw MicrophoneTestSupport.SpawnFailed(program: program, code: code) }
        self.pid = pid
        started = Date()
    }

    /// Starts the built capture as a stand-in for a camera-fed recording: above normal CPU
    /// priority when the tests run as root (as in CI), through `nice -n -10`.
    ///
    /// The test sources are lavfi graphs paced by the wall clock; starved of CPU by the rest of
    /// the suite, they fall behind it and a 4 s recording holds 2 s, which a camera, delivering
    /// from its own hardware, never does. The priority keeps the stand-in honest; as a user the
    /// cases run at normal priority and need a quiet machine.
    static func realTime(_ arguments: [String], in scratch: RecordScratch) throws -> RecordingProcess {
        if getuid() == 0, let nice = MicrophoneTestSupport.which("nice") {
            return try RecordingProcess(["-n", "-10", BuiltBinary.url.path] + arguments, program: nice, in: scratch)
        }
        return try RecordingProcess(arguments, in: scratch)
    }

    deinit {
        if lock.withLock({ exit }) == nil {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// Seconds since the process was started.
    var elapsed: TimeInterval { Date().timeIntervalSince(started) }

    /// Sleeps until `seconds` after the start.
    func sleep(untilElapsed seconds: TimeInterval) {
        let left = seconds - elapsed
        if left > 0 { Thread.sleep(forTimeInterval: left) }
    }

    /// Sends `signal` to the whole process group, as a terminal does.
    func signalGroup(_ signal: Int32) { kill(-pid, signal) }

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
            let signal = status & 0x7f
            exit = signal == 0 ? Exit(status: (status >> 8) & 0xff, signal: nil) : Exit(status: nil, signal: signal)
            return exit
        }
    }

    /// What the process wrote to stdout / stderr so far.
    var stdout: String { Self.text(stdoutPath) }
    var stderr: String { Self.text(stderrPath) }

    private static func text(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
}

extension BuiltBinary {
    /// Runs `capture arguments...` at the lowest CPU priority (`nice -n 19`) and waits for it:
    /// for CPU-heavy cases that run beside the real-time ones and must not slow them down.
    static func runNiced(_ arguments: [String]) throws -> Result {
        try RecordOracle.runTool("nice", ["-n", "19", url.path] + arguments)
    }
}
