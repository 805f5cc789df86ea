import Glibc
import Synchronization

/// What triggers event clips from outside the recording: SIGUSR1, and lines `clip` on standard
/// input (`ClipPlan.fromStandardInput`). The level trigger is the microphones' (`LevelMeter`).
///
/// Thread-safe: the signal handler and the standard-input reader count what came, the recording
/// loop takes it (`take`).
final class ClipTriggers: Sendable {
    /// SIGUSR1s received and not taken yet: process-wide, as the handler is.
    private static let signals = Atomic<Int>(0)
    private let lines = Mutex<(clips: Int, others: [String])>((0, []))

    /// Routes SIGUSR1 to the clips (`installSignalHandler`), and with `standardInput` starts
    /// reading lines from standard input.
    init(standardInput: Bool) {
        Self.installSignalHandler()
        guard standardInput else { return }
        // Blocked in a read for as long as standard input stays open; the process may end meanwhile.
        DetachedThread.start(name: "capture stdin") { [self] in
            while let line = readLine() {
                let command = line.trimmingWhitespace()
                guard !command.isEmpty else { continue }
                lines.withLock { if command == "clip" { $0.clips += 1 } else { $0.others.append(command) } }
            }
        }
    }

    /// Routes SIGUSR1 to event clips for the rest of the process: its default action would end
    /// it. A recorder that takes triggers installs it first thing, before the devices are probed
    /// and opened (seconds on a slow machine): a SIGUSR1 meanwhile is a trigger for when the
    /// recording runs, not the end of the process. Idempotent.
    ///
    /// A `sigaction(2)` handler that only adds to an atomic, which is async-signal-safe;
    /// `SA_RESTART` keeps the other threads' system calls from failing with `EINTR`.
    static func installSignalHandler() {
        var action = sigaction()
        action.__sigaction_handler = .init(sa_handler: { _ in
            ClipTriggers.signals.wrappingAdd(1, ordering: .relaxed)
        })
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGUSR1, &action, nil)
    }

    /// Takes the SIGUSR1s that came in a recording without clips: true the first time any came.
    static func takeStraySignals() -> Bool {
        signals.exchange(0, ordering: .relaxed) > 0 && !warnedStray.exchange(true, ordering: .relaxed)
    }
    private static let warnedStray = Atomic<Bool>(false)

    /// The triggers that came since the last call, with what sent each (`SIGUSR1`, `stdin`), and
    /// a warning for each line that is no command.
    func take() -> (reasons: [String], warnings: [String]) {
        let signals = Self.signals.exchange(0, ordering: .relaxed)
        let read = lines.withLock { value in
            defer { value = (0, []) }
            return value
        }
        return (
            Array(repeating: "SIGUSR1", count: signals) + Array(repeating: "stdin", count: read.clips),
            read.others.map { "standard input: '\($0)' is no command; a line 'clip' triggers a clip" }
        )
    }
}

extension RecordingSession {
    /// Takes SIGUSR1 as an event clip's trigger from now on, for the rest of the process (its
    /// default action would end it). A session with event clips (`RecordingRequest.preRoll`)
    /// takes it when it is made; a recorder calls this first, before planning probes and opens
    /// the devices, so that a SIGUSR1 meanwhile triggers a clip once the recording runs rather
    /// than ending the process. In a recording without clips a SIGUSR1 is warned about once and
    /// ignored. Wraps `sigaction(2)`; thread-safe, idempotent.
    public static func takeClipTriggerSignal() { ClipTriggers.installSignalHandler() }

    /// Passes the triggers that came since the last call to the outputs at `time` (microseconds
    /// from the start): SIGUSR1 and standard input's, and the microphones' level triggers at the
    /// times their sound held.
    ///
    /// - Throws: what an output throws (`.outputExists`, `.cannotCreate` for a clip's file).
    func passTriggers(now time: Int64) throws(CaptureError) {
        guard let triggers = clipTriggers else {
            // A recorder takes SIGUSR1 whether it makes clips or not: a stray one ends nothing.
            if ClipTriggers.takeStraySignals() {
                onWarning("SIGUSR1 triggers event clips, which this recording does not make; ignored")
            }
            return
        }
        let taken = triggers.take()
        for line in taken.warnings { onWarning(line) }
        for reason in taken.reasons { try outputs.trigger(at: time, reason: reason) }
        for _ in 0..<previewClipRequests { try outputs.trigger(at: time, reason: "http") }
        for audio in tracks.compactMap(\.audio) {
            for at in audio.meter.takeTriggers() { try outputs.trigger(at: at, reason: "level") }
        }
    }
}
