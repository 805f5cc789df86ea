import Foundation
import Synchronization
import Testing

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
        var free = RealTimeSlots.slots
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

    /// Runs `body` holding every slot: for a case that loads the machine on purpose, so that no
    /// real-time recording runs beside it. Such cases take their turns first, one at a time: two
    /// taking slots together would each hold some and wait for the rest forever.
    static func runAlone<T>(_ body: () async throws -> T) async throws -> T {
        await takeTurn()
        defer { endTurn() }
        for _ in 0..<slots { await acquire() }
        defer { for _ in 0..<slots { release() } }
        return try await body()
    }

    /// Whether a `runAlone` case is taking its slots or running, and the ones waiting their turn.
    private static let turns = Mutex((busy: false, waiting: [CheckedContinuation<Void, Never>]()))

    private static func takeTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = turns.withLock { turns in
                if !turns.busy {
                    turns.busy = true
                    return true
                }
                turns.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private static func endTurn() {
        let next = turns.withLock { turns in
            if turns.waiting.isEmpty {
                turns.busy = false
                return nil as CheckedContinuation<Void, Never>?
            }
            return turns.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding every slot (`runAlone`) beside a busy loop pinned to CPU 0
    /// (`taskset`), killed when `body` returns: a machine made slow on purpose, for cases that
    /// run capture on CPU 0 too.
    static func besideBusyLoop<T>(_ body: () async throws -> T) async throws -> T {
        let taskset = try #require(ChildProcess.which("taskset"), "taskset (util-linux) is needed")
        return try await runAlone {
            let hog = try ChildProcess(taskset, ["-c", "0", "sh", "-c", "while :; do :; done"], stdout: .null)
            defer {
                hog.signal(SIGKILL)
                hog.wait()
            }
            return try await body()
        }
    }

    private static let slots = 4

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

extension ChildProcess {
    /// Starts `program arguments...` (default: the built capture) as a shell starts a job, at the
    /// head of a process group of its own: the tests send signals to the whole group the way a
    /// terminal's Ctrl-C does, and tests running in parallel cannot signal each other's children.
    ///
    /// stdout and stderr go to `NAME.stdout` and `NAME.stderr` in the test's scratch folder, so a
    /// chatty child never blocks on a pipe and the output can be read after a kill.
    static func recording(
        _ arguments: [String], program: String = BuiltBinary.path, in scratch: RecordScratch,
        name: String = "capture"
    ) throws -> ChildProcess {
        try ChildProcess(
            program, arguments, stdout: .file(scratch.path("\(name).stdout")),
            stderr: .file(scratch.path("\(name).stderr")), newProcessGroup: true)
    }

    /// Starts the built capture as a stand-in for a camera-fed recording: above normal CPU
    /// priority when the tests run as root (as in CI), through `nice -n -10`.
    ///
    /// The test sources are lavfi graphs paced by the wall clock; starved of CPU by the rest of
    /// the suite, they fall behind it and a 4 s recording holds 2 s, which a camera, delivering
    /// from its own hardware, never does. The priority keeps the stand-in honest; as a user the
    /// cases run at normal priority and need a quiet machine.
    static func realTime(_ arguments: [String], in scratch: RecordScratch) throws -> ChildProcess {
        if getuid() == 0, let nice = which("nice") {
            return try recording(["-n", "-10", BuiltBinary.path] + arguments, program: nice, in: scratch)
        }
        return try recording(arguments, in: scratch)
    }
}
