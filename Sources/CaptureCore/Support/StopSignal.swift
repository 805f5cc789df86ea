import FoundationEssentials
import Glibc
import Synchronization

/// A request to stop recording, from SIGINT, SIGTERM or SIGHUP or from code.
///
/// Thread-safe. The recorder polls it, and FFmpeg polls it through the inputs' interrupt callback
/// while a read blocks, so a stop takes effect within one read.
public final class StopSignal: Sendable {
    private let signalNumber = Atomic<Int32>(0)
    private let requested = Atomic<Bool>(false)
    private let keepsReading = Atomic<Bool>(false)
    /// Raised together with the request; FFmpeg's `interrupt_callback` reads it.
    let interrupt = InterruptFlag()

    public init() {}

    /// True once a stop was requested.
    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// The signal that asked to stop (SIGINT ...), or 0 when code asked or nothing did.
    public var signal: Int32 { signalNumber.load(ordering: .acquiring) }

    /// Asks the recording to stop; it flushes the encoders and writes the trailer first.
    public func request(signal: Int32 = 0) {
        if signal != 0 {
            _ = signalNumber.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing)
        }
        requested.store(true, ordering: .releasing)
        if !keepsReading.load(ordering: .acquiring) { interrupt.raise() }
    }

    /// From now on a stop leaves the devices reading, so what they captured up to the stop (a
    /// sound server's last fragments, the camera's last frame) still arrives; the recorder
    /// raises `interrupt` itself once it has it, or has waited long enough. Before this, a stop
    /// interrupts at once (opening a device, waiting for the first frames).
    func keepReadingOnStop() { keepsReading.store(true, ordering: .releasing) }

    /// Routes SIGINT, SIGTERM and SIGHUP to `request(signal:)` for the rest of the process.
    ///
    /// A `sigaction(2)` handler, installed before this returns: a signal from then on always
    /// reaches the request. (A Dispatch signal source, registered asynchronously on its manager
    /// thread behind an `SIG_IGN`, lost every signal of the first ~150 ms.) The handler only
    /// stores to atomics, which is async-signal-safe; it stays installed, so a second signal during
    /// finalization cannot kill the process half way through the trailer. `SA_RESTART` keeps
    /// the other threads' system calls from failing with `EINTR`.
    public nonisolated func installHandlers(signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        // Retained for the rest of the process, as is any StopSignal installed before: a handler
        // may be running on another thread with its pointer.
        Self.target.store(UInt(bitPattern: Unmanaged.passRetained(self).toOpaque()), ordering: .releasing)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler = .init(sa_handler: { number in StopSignal.deliver(number) })
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }

    /// The `StopSignal` the handlers request, as the bits of an unmanaged pointer (0: none).
    private static let target = Atomic<UInt>(0)

    /// Runs in the signal handler: atomics only.
    private static func deliver(_ number: Int32) {
        guard let pointer = UnsafeRawPointer(bitPattern: target.load(ordering: .acquiring)) else { return }
        Unmanaged<StopSignal>.fromOpaque(pointer).takeUnretainedValue().request(signal: number)
    }

    /// "SIGINT", "SIGTERM", "SIGHUP" or "signal N".
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}
