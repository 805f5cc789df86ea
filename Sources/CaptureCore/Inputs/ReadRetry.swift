import Glibc

/// Reads of a camera that fail for a moment and are tried again in place, and the runs of them.
///
/// uvcvideo on a flaky cable or hub fails VIDIOC_DQBUF with EIO a few times and then streams on;
/// the V4L2 spec says of that error that the driver may even have taken a filled buffer with it.
/// FFmpeg 5.1's v4l2 input (`mmap_read_frame`) returns AVERROR(EIO) from `av_read_frame` then and
/// changes none of its state, so the same input can be read again. The frames lost meanwhile never
/// reach the reader: they are gaps in the camera's timestamps, which the frame tally counts.
///
/// A run of such failures ends when a read succeeds. Nothing here bounds it: a camera that keeps
/// failing delivers nothing, and the reader's stall timeout (`RecordingPlan.stallTimeout`, the
/// snapshot's `SnapshotRequest.stallTimeout`) ends it as it ends a camera that sends nothing, with
/// `--reconnect` by letting go of the camera and opening it again, which clears a queue the
/// driver marked in error.
struct ReadRetry {
    /// Microseconds between tries. A read that fails at once (a queue in error) is tried fifty
    /// times a second, not in a busy loop; the driver keeps filling its other buffers meanwhile,
    /// so a camera that recovers loses no frame to the pause.
    static let pause: useconds_t = 20_000

    /// True when `error`, from a read of `device`, is worth reading again: an EIO from a camera
    /// whose node is still there. A camera unplugged fails its reads with EIO too (uvcvideo), but
    /// its node is gone by then (V4L2Discovery.cardAndBus opens and queries it): that is a loss.
    static func isTransient(_ error: FFmpegError, device: Device) -> Bool {
        guard error.errno == .ioError, let camera = device.v4l2 else { return false }
        return V4L2Discovery.cardAndBus(path: camera.path) != nil
    }

    /// Failed reads in a row: how many, when the first and the last failed (session clock,
    /// microseconds), and the error.
    var count = 1
    var since: Int64
    var last: Int64
    var error: String

    init(at time: Int64, error: FFmpegError) {
        since = time
        last = time
        self.error = error.message
    }

    /// One more failure at `time`.
    mutating func add(at time: Int64) {
        count += 1
        last = time
    }

    /// How long the run lasted, seconds.
    var seconds: Double { Double(last - since) / 1e6 }

    /// What a stall made of failing reads lacked, for its message: "reads failing (Input/output error)".
    var lacking: String { "reads failing (\(error))" }

    /// The warning once the camera reads again: how many reads failed, over how long.
    func recovered(device: String) -> String {
        let reads = count == 1 ? "1 read" : "\(count) reads"
        return "\(device): \(reads) failed (\(error)) over \(String(cFormat: "%.1f", seconds)) s; "
            + "recording on, the frames lost count as gaps"
    }
}
