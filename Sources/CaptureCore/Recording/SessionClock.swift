import Foundation

/// The one clock of a recording: CLOCK_MONOTONIC, in microseconds.
///
/// Every packet's timestamp is moved onto this clock as it is read, whichever clock its device
/// stamps with, so that camera and microphone can be compared and the recording starts at zero.
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
struct TimestampMapper: Sendable {
    enum Domain: String, Sendable { case monotonic, wallClock, media }

    /// How close, in microseconds, a timestamp must be to a clock's now to count as that clock's.
    static let tolerance: Int64 = 5_000_000

    private(set) var domain: Domain?
    private var anchor: (pts: Int64, arrival: Int64)?

    /// - Parameters:
    ///   - domain: force a domain (lavfi graphs are always `.media`); nil detects it.
    ///   - origin: for media time, the session time of media time 0. Unpaced graphs share one
    ///     origin so they stay in step however their readers are scheduled; nil anchors media time
    ///     at the first packet's arrival, as for a source paced in real time.
    init(domain: Domain? = nil, origin: Int64? = nil) {
        self.domain = domain
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
            if abs(pts - arrival) < Self.tolerance {
                domain = .monotonic
            } else if abs(pts - (arrival + wallOffset)) < Self.tolerance {
                domain = .wallClock
            } else {
                domain = .media
            }
        }
        switch domain! {
        case .monotonic:
            return pts
        case .wallClock:
            return pts - wallOffset
        case .media:
            if anchor == nil { anchor = (pts, arrival) }
            return anchor!.arrival + (pts - anchor!.pts)
        }
    }
}
