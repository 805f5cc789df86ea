import FoundationEssentials
import Glibc

/// The one clock of a recording: CLOCK_MONOTONIC, in microseconds.
///
/// Every packet's timestamp is moved onto this clock as it is read, whichever clock its device
/// stamps with, so that camera and microphone can be compared and the recording starts at zero.
/// Timeouts and waits use it too: a change of the wall clock must not stretch them.
enum SessionClock {
    /// Now on CLOCK_MONOTONIC, in microseconds.
    static func now() -> Int64 { read(CLOCK_MONOTONIC) }

    /// How far the wall clock (CLOCK_REALTIME) is ahead of the monotonic one now, in microseconds.
    static func wallClockOffset() -> Int64 { read(CLOCK_REALTIME) - read(CLOCK_MONOTONIC) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}

/// Moves one input's packet timestamps onto the session clock.
///
/// Which clock a device stamps with is found from its first timestamp: V4L2 drivers use
/// CLOCK_MONOTONIC, FFmpeg's ALSA and PulseAudio inputs the wall clock; a lavfi graph counts
/// from 0 in its own media time. The first is taken as is, the second shifted by the current
/// wall-minus-monotonic offset, and the third anchored at the arrival of the first packet.
///
/// A device's clock may jump (a driver's 64-bit timestamp wrapping, a clock reset): when a
/// detected clock's time lands more than `tolerance` from the packet's arrival, or more than a
/// second before the previous packet's, the device's time is anchored again at this arrival and
/// followed from there, so its stream goes on rather than falling outside the recording.
struct TimestampMapper: Sendable {
    enum Domain: String, Sendable { case monotonic, wallClock, media }

    /// How close, in microseconds, a timestamp must be to a clock's now to count as that clock's.
    static let tolerance: Int64 = 5_000_000
    /// How far, in microseconds, a timestamp may fall back behind the previous one before it
    /// counts as a jump rather than jitter.
    static let backwardTolerance: Int64 = 1_000_000

    private(set) var domain: Domain?
    private var anchor: (pts: Int64, arrival: Int64)?
    /// The clock was detected from the device's timestamps, so jumps are followed; a forced domain
    /// (a lavfi graph's media time, which an unpaced graph runs ahead of real time) is kept.
    private let detects: Bool
    private var last: Int64?
    /// How many times the device's clock jumped and was anchored again.
    private(set) var jumps = 0

    /// - Parameters:
    ///   - domain: force a domain (lavfi graphs are always `.media`); nil detects it.
    ///   - origin: for media time, the session time of media time 0. Unpaced graphs share one
    ///     origin so they stay in step however their readers are scheduled; nil anchors media time
    ///     at the first packet's arrival, as for a source paced in real time.
    init(domain: Domain? = nil, origin: Int64? = nil) {
        self.domain = domain
        detects = domain == nil
        if let origin { anchor = (0, origin) }
    }

    /// The session time of a packet, in microseconds on CLOCK_MONOTONIC.
    ///
    /// - Parameters:
    ///   - pts: the packet's timestamp in microseconds on the device's clock; nil when it has none.
    ///   - arrival: when the packet was read, on CLOCK_MONOTONIC.
    ///   - wallOffset: `SessionClock.wallClockOffset()` at about the same moment.
    mutating func sessionTime(pts: Int64?, arrival: Int64, wallOffset: Int64) -> Int64 {
        guard let pts else { return arrival }
        if domain == nil {
            if Self.near(pts, arrival) {
                domain = .monotonic
            } else if Self.near(pts, arrival &+ wallOffset) {
                domain = .wallClock
            } else {
                domain = .media
            }
        }
        var time = mapped(pts, arrival: arrival, wallOffset: wallOffset)
        if detects && (!Self.near(time, arrival) || time < (last ?? time) &- Self.backwardTolerance) {
            domain = .media
            anchor = (pts, arrival)
            jumps += 1
            time = arrival
        }
        last = time
        return time
    }

    /// True when `a` and `b` are within `tolerance` of each other, for any two values.
    private static func near(_ a: Int64, _ b: Int64) -> Bool {
        a.subtractingReportingOverflow(b).overflow == false && (a - b).magnitude < UInt64(tolerance)
    }

    private mutating func mapped(_ pts: Int64, arrival: Int64, wallOffset: Int64) -> Int64 {
        switch domain! {
        case .monotonic:
            return pts
        case .wallClock:
            return pts - wallOffset
        case .media:
            if anchor == nil { anchor = (pts, arrival) }
            // Wrapping arithmetic: a wrapped 64-bit clock may sit at either end of the range.
            return anchor!.arrival &+ (pts &- anchor!.pts)
        }
    }
}
