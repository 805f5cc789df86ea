/// Finds a live device that has been silent, or has sent nothing usable, for longer than the
/// stall timeout: a stalled device ends the recording rather than leave it waiting forever.
struct StallWatch {
    /// Microseconds of silence that count as a stall.
    let limit: Int64
    /// When the readers started; `loopStart`: when every device had delivered.
    let startedAt: Int64
    let loopStart: Int64

    /// The device name of a live input silent or useless for longer than the limit, if any, what
    /// it did not send, and its lane. A device lost and waited for (`link` of its lane) is not stalled; one
    /// that came back has the limit from its return.
    func stalled(
        now: Int64, queue: PacketQueue, video: Track<VideoPath>?, audio: Track<AudioPath>?, endedLanes: Set<Int>,
        link: (Int) -> DeviceLink? = { _ in nil }
    ) -> (device: String, lacking: String, lane: Int)? {
        let lanes = [video.map { ($0.lane, $0.source) }, audio.map { ($0.lane, $0.source) }].compactMap { $0 }
        for (lane, source) in lanes where source.live && !endedLanes.contains(lane) && link(lane)?.waiting != true {
            let last = queue.lastArrival(lane: lane) ?? startedAt
            if now - last > limit { return (source.device.name, "no data", lane) }
        }
        // A camera that keeps sending only what cannot be recorded (damaged frames, frames whose
        // times fall outside the recording) is as stalled as a silent one. Measured between the
        // arrivals of the frames judged, never against now: a loop behind the camera has simply
        // not judged the newer ones yet.
        if let video, video.source.live, !video.path.done, !endedLanes.contains(video.lane),
            link(video.lane)?.waiting != true, let judged = video.path.lastJudgedArrival,
            judged - max(video.path.lastUsableArrival ?? loopStart, link(video.lane)?.backAt ?? loopStart) > limit
        {
            return (video.device, "no usable frame", video.lane)
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
