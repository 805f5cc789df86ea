/// When the loop ends: the duration's deadline on the session clock, a stop request, and after a
/// stop, how long the devices may still deliver what they captured before it.
struct StopPolicy {
    /// The recording's start on the session clock.
    let t0: Int64
    /// The duration ends on the session clock whatever a device's own clock does: a stream whose
    /// times went astray would otherwise never reach the end. The margin lets devices deliver what
    /// they captured up to the end; a device that delivers in large fragments (a PulseAudio
    /// source that keeps its 2 s latency) gets its longest wait between packets on top, up to
    /// `longestExtension`, so its last fragment is not cut off on a slow machine.
    let deadline: Int64?
    /// The most the deadline moves for a device that delivers in large fragments (microseconds).
    static let longestExtension: Int64 = 8_000_000
    /// When a stop was requested, on the session clock.
    private(set) var stoppingSince: Int64?
    var reason = StopReason.endOfInput

    init(t0: Int64, duration: Double?) {
        self.t0 = t0
        deadline = duration.map { t0 + Int64(($0 + 2) * 1e6) }
    }

    var stopping: Bool { stoppingSince != nil }

    /// True when the loop ends now: the deadline passed, or a stop was requested and the devices
    /// had their time to deliver. A new stop request ends the tracks where it came: the cameras,
    /// which the microphones then follow, or with no camera the microphones.
    mutating func shouldEnd(
        now: Int64, stop: StopSignal, queue: PacketQueue, tracks: [Track], endedLanes: Set<Int>
    ) -> Bool {
        // The queue is asked only once the deadline itself has passed: this runs between packets.
        if let deadline, now >= deadline, !stopping,
            now >= deadline + min(queue.longestInterval(), Self.longestExtension)
        {
            reason = .duration
            return true
        }
        if stop.isRequested && !stopping {
            stoppingSince = now
            reason = .stopped(signal: stop.signal != 0 ? StopSignal.name(of: stop.signal) : nil)
            let end = now - t0
            let cameras = tracks.cameras
            for track in cameras.isEmpty ? tracks : cameras {
                track.path.endTime = min(track.path.endTime ?? end, end)
            }
        }
        guard let since = stoppingSince else { return false }
        // A device delivers within a frame or an audio period; one silent for half a second after
        // the stop is stalled in a read nothing interrupts: finalize without it rather than keep
        // the user waiting (2 s at most for a slow one).
        let waiting = tracks.filter { !$0.finished(endedLanes) }
        let lastHeard = waiting.compactMap { queue.lastArrival(lane: $0.lane) }.max() ?? since
        return now - since > 2_000_000 || now - max(since, lastHeard) > 500_000
    }
}
