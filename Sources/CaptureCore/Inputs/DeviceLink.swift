import Synchronization

/// A device's comings and goings while a reader waits for it to come back (`RecordingPlan.
/// DeviceReconnect`): the reader thread writes, the recording loop reads. Thread-safe.
final class DeviceLink: Sendable {
    /// What the loop reports as it happens.
    enum Event: Sendable {
        /// The device was lost: why, in a few words.
        case lost(reason: String)
        /// It is back after `seconds` away.
        case back(seconds: Double)
    }

    private struct State {
        /// When the device was lost (session clock, microseconds); nil while it is there.
        var lostAt: Int64?
        /// When it last came back.
        var backAt: Int64?
        /// When it was last lost, kept after it came back.
        var lastLostAt: Int64?
        var reconnects = 0
        /// Microseconds away, losses that ended only.
        var away: Int64 = 0
        var events: [Event] = []
    }

    private let state = Mutex(State())

    /// Marks the device lost at `time`.
    func lose(at time: Int64, reason: String) {
        state.withLock {
            // A stall freed by the loop is marked lost before the reader sees its read fail.
            guard $0.lostAt == nil else { return }
            $0.lostAt = time
            $0.lastLostAt = time
            $0.events.append(.lost(reason: reason))
        }
    }

    /// Marks the device back at `time`.
    func back(at time: Int64) {
        state.withLock {
            guard let lostAt = $0.lostAt else { return }
            $0.lostAt = nil
            $0.backAt = time
            $0.reconnects += 1
            $0.away += time - lostAt
            $0.events.append(.back(seconds: Double(time - lostAt) / 1e6))
        }
    }

    /// True while the device is away and waited for.
    var waiting: Bool { state.withLock { $0.lostAt != nil } }

    /// When the device was lost (session clock, microseconds); nil while it is there.
    var lostAt: Int64? { state.withLock { $0.lostAt } }

    /// When the device was last lost, whether or not it is back; nil if it never was.
    var lastLostAt: Int64? { state.withLock { $0.lastLostAt } }

    /// When the device last came back, nil if it never left.
    var backAt: Int64? { state.withLock { $0.backAt } }

    /// What happened since the last call, oldest first.
    func takeEvents() -> [Event] {
        state.withLock { s in
            defer { s.events.removeAll() }
            return s.events
        }
    }

    /// Times lost and back, and seconds away in all up to `now` (a wait still going on counts).
    func totals(now: Int64) -> (reconnects: Int, seconds: Double) {
        state.withLock { s in
            let away = s.away + (s.lostAt.map { now - $0 } ?? 0)
            return (s.reconnects, Double(away) / 1e6)
        }
    }
}
