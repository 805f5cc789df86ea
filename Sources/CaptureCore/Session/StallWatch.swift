/// Finds a live device that has been silent, or has sent nothing usable, for longer than the
/// stall timeout: a stalled device ends the recording rather than leave it waiting forever.
struct StallWatch {
    /// Microseconds of silence that count as a stall.
    let limit: Int64
    /// When the readers started; `loopStart`: when every device had delivered.
    let startedAt: Int64
    let loopStart: Int64

    /// The device name of a live input silent or useless for longer than the limit, if any, what
    /// it did not send, and its lane. A device lost and waited for (its reader's `link`) is not
    /// stalled; one that came back has the limit from its return.
    func stalled(now: Int64, queue: PacketQueue, tracks: [Track], endedLanes: Set<Int>) -> (
        device: String, lacking: String, lane: Int
    )? {
        let watched = tracks.filter { $0.source.live && !endedLanes.contains($0.lane) && !$0.reader.link.waiting }
        for track in watched {
            let last = queue.lastArrival(lane: track.lane) ?? startedAt
            if now - last > limit { return (track.device, "no data", track.lane) }
        }
        // A camera that keeps sending only what cannot be recorded (damaged frames, frames whose
        // times fall outside the recording) is as stalled as a silent one. Measured between the
        // arrivals of the frames judged, never against now: a loop behind the camera has simply
        // not judged the newer ones yet.
        for track in watched {
            guard let video = track.video, !video.done, let judged = video.lastJudgedArrival else { continue }
            let since = max(video.lastUsableArrival ?? loopStart, track.reader.link.backAt ?? loopStart)
            if judged - since > limit { return (track.device, "no usable frame", track.lane) }
        }
        return nil
    }

    /// The error that ends a recording when `device` stalled: it sent `lacking` ("no data", "no
    /// usable frame") for `timeout` seconds.
    static func error(device: String, lacking: String, timeout: Double, fileWritten: Bool) -> CaptureError {
        .io(
            subject: device,
            reason: "\(lacking) for \(DurationValue.text(timeout)) s; the device stalled. "
                + (fileWritten ? "The file is finalized up to there" : "Nothing was recorded; no file was written"))
    }
}
