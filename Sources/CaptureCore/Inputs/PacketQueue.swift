import FoundationEssentials
import Glibc

/// A packet on its way from a reader thread to the recording loop, stamped on the session clock.
struct QueuedPacket: @unchecked Sendable {
    let packet: Packet
    /// Capture time on the session clock (CLOCK_MONOTONIC), microseconds.
    let time: Int64
    /// When its reader queued it, on the session clock, microseconds. What the recorder makes of
    /// a packet is judged against when it came, not against when the loop got to it: a loop that
    /// runs behind must never take its own lag for the device's.
    let arrival: Int64
    /// How often its camera's source had changed mode when it was read (`SourceFollower`): the
    /// loop builds a new chain at the first packet of a new generation.
    var generation = 0

    init(packet: Packet, time: Int64, arrival: Int64 = SessionClock.now(), generation: Int = 0) {
        self.packet = packet
        self.time = time
        self.arrival = arrival
        self.generation = generation
    }
}

/// The bounded hand-over between reader threads (one lane each) and the recording loop.
///
/// A live video lane that is full drops its oldest packet, so a slow encoder costs frames, not
/// memory or latency; the drops are counted. A live audio lane is never trimmed (audio is small
/// and a gap is audible). A lane fed from an unpaced source (a lavfi graph) makes its reader wait
/// instead, since nothing is lost by waiting. A packet taken out or dropped is let go at once
/// (`PacketRing`), so the queue holds no more frames than it has waiting. Thread-safe.
///
/// Until the recording starts (`firstTimes` returns), a live video lane keeps what it gets, up to
/// `startupByteBudget`: a device that delivers late (a sound server's first fragment, stamped with
/// its capture time) must not cost the frames captured meanwhile. That backlog is then worked off,
/// the lane shrinking back to its capacity as the loop takes from it.
final class PacketQueue: @unchecked Sendable {
    struct LaneState {
        /// Edited in place through `lanes[i]`: a copy of the state would copy the ring's storage.
        var items = PacketRing<QueuedPacket>()
        var live: Bool
        var dropsOldest: Bool
        var capacity: Int
        var ended = false
        var error: CaptureError?
        /// Packets dropped because the lane was full.
        var dropped = 0
        /// Capture times of the packets dropped since `takeDropped` last asked.
        var droppedTimes: [Int64] = []
        /// When the last packet arrived (session clock), for stall detection.
        var lastArrival: Int64?
        /// The longest wait between two packets so far (microseconds): how the device delivers,
        /// from every frame to a sound server's fragment of seconds.
        var longestInterval: Int64 = 0
        var count: Int { items.count }
        /// Capture time of the oldest packet waiting; nil when none is.
        var firstTime: Int64? { items.first?.time }
        /// Bytes of payload waiting.
        var bytes = 0
        /// Packets held above `capacity` since start-up, shrinking as the loop takes them.
        var backlog = 0

        mutating func popFirst() -> QueuedPacket? {
            guard let item = items.popFirst() else { return nil }
            bytes -= item.packet.size
            return item
        }
    }

    enum Event {
        case packet(lane: Int, QueuedPacket)
        /// A lane's reader stopped: at the end of its input, on a stop request, or on `error`.
        case ended(lane: Int, error: CaptureError?)
        /// Nothing arrived within the timeout.
        case idle
    }

    /// Session time (CLOCK_MONOTONIC, microseconds) at which unpaced sources' media time 0 is put.
    let origin = SessionClock.now()

    /// How far (microseconds) a live audio lane may fall behind before it is served first.
    static let audioLagLimit: Int64 = 1_000_000

    /// Bytes a live video lane may hold before the recording starts.
    static let startupByteBudget = 64 << 20

    private let condition = Condition()
    private var lanes: [LaneState] = []
    /// False until `firstTimes` has returned: the recording has not started.
    private var started = false
    private var reportedEnd: Set<Int> = []
    private var closed = false

    /// Adds a lane and returns its number.
    ///
    /// - Parameters:
    ///   - live: a device that produces in real time whether or not anyone reads.
    ///   - dropsOldest: when full, drop the oldest packet instead of waiting (live video).
    ///   - capacity: packets held before dropping or waiting.
    func addLane(live: Bool, dropsOldest: Bool, capacity: Int) -> Int {
        condition.withLock {
            lanes.append(
                LaneState(
                    items: PacketRing(capacity: capacity), live: live, dropsOldest: dropsOldest, capacity: capacity))
            return lanes.count - 1
        }
    }

    /// Queues a packet. Blocks while an unpaced lane is full.
    func push(_ item: QueuedPacket, lane: Int) {
        // What a full live video lane drops is freed after the lock is released: freeing a V4L2
        // packet hands its buffer back to the driver (an ioctl).
        var discarded: [QueuedPacket] = []
        condition.withLock {
            let now = SessionClock.now()
            if let last = lanes[lane].lastArrival {
                lanes[lane].longestInterval = max(lanes[lane].longestInterval, now - last)
            }
            lanes[lane].lastArrival = now
            while !closed && lanes[lane].count >= lanes[lane].capacity + lanes[lane].backlog {
                if lanes[lane].dropsOldest && !started && lanes[lane].bytes < Self.startupByteBudget {
                    break
                }
                if lanes[lane].dropsOldest {
                    if let oldest = lanes[lane].popFirst() {
                        lanes[lane].droppedTimes.append(oldest.time)
                        // It is late, not lost by the device; the frames the device lost before it are.
                        (lanes[lane].items.first ?? item).packet.framesLostBefore += oldest.packet.framesLostBefore
                        discarded.append(oldest)
                    }
                    lanes[lane].dropped += 1
                } else if lanes[lane].live {
                    break  // live audio: never lose it; the capacity is a soft limit
                } else {
                    condition.wait()
                }
            }
            if closed { return }
            lanes[lane].items.push(item)
            lanes[lane].bytes += item.packet.size
            condition.broadcast()
        }
        discarded.removeAll()
    }

    /// Marks a lane's reader as finished, with the error that ended it if any.
    func end(lane: Int, error: CaptureError?) {
        condition.withLock {
            lanes[lane].ended = true
            lanes[lane].error = error
            condition.broadcast()
        }
    }

    /// Wakes and releases every waiting reader, and frees the packets still queued; later pushes
    /// are discarded.
    func close() {
        condition.withLock {
            closed = true
            for index in lanes.indices {
                lanes[index].items.removeAll()
                lanes[index].bytes = 0
            }
            condition.broadcast()
        }
    }

    /// Waits until every lane has a packet or has ended, or until `deadline` (session clock).
    ///
    /// - Returns: the time of each lane's first packet, nil for a lane with none.
    func firstTimes(until deadline: Int64) -> [Int64?] {
        condition.withLock {
            while !lanes.allSatisfy({ $0.count > 0 || $0.ended }) {
                let remaining = deadline - SessionClock.now()
                if remaining <= 0 { break }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(remaining) / 1e6))
            }
            started = true
            // Room for what is held plus the next frame, so the backlog does not cost the next one.
            for index in lanes.indices { lanes[index].backlog = max(0, lanes[index].count - lanes[index].capacity + 1) }
            return lanes.map(\.firstTime)
        }
    }

    /// The next event: the earliest packet among the lanes, a lane that ended, or `.idle`.
    ///
    /// Unpaced lanes are merged strictly in time order (the loop waits for an empty one);
    /// live lanes are taken in time order unless audio lags more than `audioLagLimit`.
    func next(timeout: Double) -> Event {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while true {
                for index in lanes.indices
                where lanes[index].ended && lanes[index].count == 0
                    && !reportedEnd.contains(index)
                {
                    reportedEnd.insert(index)
                    return .ended(lane: index, error: lanes[index].error)
                }
                let waitingForUnpaced = lanes.contains { !$0.live && !$0.ended && $0.count == 0 }
                if !waitingForUnpaced {
                    // Time order, except that a live lane which never drops (audio) and lags more
                    // than `audioLagLimit` goes first. Pure time order lets an audio backlog, always
                    // older than the freshest video, grow without bound; pure audio-first lets a
                    // costly audio encoder starve video for as long as it runs.
                    let now = SessionClock.now()
                    let urgent = lanes.indices.filter {
                        lanes[$0].live && !lanes[$0].dropsOldest
                            && lanes[$0].firstTime.map { now - $0 > Self.audioLagLimit } == true
                    }
                    let pool = urgent.isEmpty ? Array(lanes.indices) : urgent
                    var best: (lane: Int, time: Int64)?
                    for index in pool {
                        guard let time = lanes[index].firstTime else { continue }
                        if best == nil || time < best!.time { best = (index, time) }
                    }
                    if let best, let item = lanes[best.lane].popFirst() {
                        // The start-up backlog shrinks as it is worked off, never grows again.
                        lanes[best.lane].backlog = min(
                            lanes[best.lane].backlog, max(0, lanes[best.lane].count - lanes[best.lane].capacity + 1))
                        condition.broadcast()
                        return .packet(lane: best.lane, item)
                    }
                }
                if !condition.wait(until: deadline) { return .idle }
            }
        }
    }

    /// Packets dropped so far from `lane` because it was full.
    func dropped(lane: Int) -> Int { condition.withLock { lanes[lane].dropped } }

    /// The capture times (session clock) of the packets dropped from `lane` since the last call,
    /// oldest first. A lane drops only its oldest packet, so these all lie between the packet
    /// taken before and the next one taken.
    func takeDropped(lane: Int) -> [Int64] {
        condition.withLock {
            defer { lanes[lane].droppedTimes.removeAll(keepingCapacity: true) }
            return lanes[lane].droppedTimes
        }
    }

    /// Counts now as `lane`'s last arrival: a device that came back starts its stall timeout afresh.
    func touch(lane: Int) { condition.withLock { lanes[lane].lastArrival = SessionClock.now() } }

    /// When `lane` last received a packet, on the session clock; nil before the first.
    func lastArrival(lane: Int) -> Int64? { condition.withLock { lanes[lane].lastArrival } }

    /// The longest wait between two packets of any lane so far, in microseconds; a device's
    /// return (`touch`) starts its lane afresh, so its absence does not count.
    func longestInterval() -> Int64 { condition.withLock { lanes.map(\.longestInterval).max() ?? 0 } }

    /// Packets of `lane` waiting to be taken.
    func waiting(lane: Int) -> Int { condition.withLock { lanes[lane].count } }
}
