import Dispatch
import Foundation
import Synchronization

/// A request to stop recording, from SIGINT, SIGTERM or SIGHUP or from code.
///
/// Thread-safe. The recorder polls it, and FFmpeg polls it through the inputs' interrupt callback
/// while a read blocks, so a stop takes effect within one read.
public final class StopSignal: Sendable {
    private let signalNumber = Atomic<Int32>(0)
    private let requested = Atomic<Bool>(false)
    /// Raised together with the request; FFmpeg's `interrupt_callback` reads it.
    let interrupt = InterruptFlag()
    private let retained = RetainedSources()

    public init() {}

    /// True once a stop was requested.
    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// The signal that asked to stop (SIGINT ...), or 0 when code asked or nothing did.
    public var signal: Int32 { signalNumber.load(ordering: .acquiring) }

    /// Asks the recording to stop; it flushes the encoders and writes the trailer first.
    public func request(signal: Int32 = 0) {
        if signal != 0 { _ = signalNumber.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing) }
        requested.store(true, ordering: .releasing)
        interrupt.raise()
    }

    /// Routes SIGINT, SIGTERM and SIGHUP to `request(signal:)` for the rest of the process.
    ///
    /// The default actions are replaced by `SIG_IGN` so a second signal during finalization cannot
    /// kill the process half way through the trailer. The handlers run on a Dispatch queue; this
    /// function is `nonisolated` so they do not inherit the main actor of a caller in `main()`.
    public nonisolated func installHandlers(signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        var installed: [any DispatchSourceSignal] = []
        for number in signals {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.request(signal: number) }
            source.resume()
            installed.append(source)
        }
        retained.add(installed)
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

/// Keeps the signal sources alive; Dispatch cancels a source that is released.
private final class RetainedSources: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []

    func add(_ more: [any DispatchSourceSignal]) { lock.withLock { sources += more } }
}
