/// The camera or video source a snapshot reads, opened and checked: the device as resolved, its
/// input and the video stream in it.
///
/// Opened as for a recording (the same names, mode selection, and busy, permission and
/// missing-device errors). Used only by the thread running `Snapshooter.run`.
struct SnapshotSource {
    let device: Device
    let source: InputSource
    let input: InputContainer
    /// The video stream's index in `input`, and what it carries.
    let index: Int
    let info: MediaStreamInfo

    /// Opens and checks `device` (resolved from `request`'s) in the mode `request` asks for.
    ///
    /// - Returns: nil when a stop came while the device opened.
    /// - Throws: the device's errors as for a recording (64 for a lavfi graph without video, 66,
    ///   69 for a mode the driver changed, 75, 77), or 74 when it did not open within the stall
    ///   timeout.
    static func open(_ device: Device, request: SnapshotRequest, stop: StopSignal, deadline: ReadDeadline)
        throws(CaptureError) -> SnapshotSource?
    {
        let entry = try DeviceSurvey.entry(for: device, kind: .video)
        var size = request.videoSize
        if let probe = entry.camera, size == nil {
            size = try ModeSelector.largestSize(inputFormat: request.inputFormat, from: probe)
        }
        let source = try InputSource.make(
            device, kind: .video, video: VideoRequest(frameSize: size, inputFormat: request.inputFormat),
            camera: entry.camera)
        let input: InputContainer
        do {
            input = try source.open(interrupt: stop.interrupt)
        } catch {
            // A stop while the device opens ends as a stop before the first picture, not an error.
            if stop.isRequested { return nil }
            if deadline.passed {
                throw .io(
                    subject: source.url,
                    reason: "it did not open within \(DurationValue.text(request.stallTimeout)) s; the device stalled")
            }
            throw error
        }
        // The stall timeout counts from here: opening a camera may take its time.
        deadline.fed()
        if !source.live {
            do throws(FFmpegError) { try input.findStreamInfo() } catch {
                throw InputSource.captureError(error, device: device)
            }
        }
        guard let index = input.firstStream(of: .video) else {
            if device.api == .lavfi { throw .usage("\(device.name): the lavfi graph gives no video") }
            throw .notSupported(device: device.name, reason: "gives no video")
        }
        let info = input.info(of: index)
        // A still is one picture: the size must be the one asked for, the rate matters not.
        try VideoNegotiation.checkApplied(source.mode, by: info, url: source.url, checksRate: false)
        return SnapshotSource(device: device, source: source, input: input, index: index, info: info)
    }

    /// What the source delivers, e.g. "mjpeg 1280x720" or "yuyv422 640x480".
    var inputDescription: String {
        "\(info.pixelFormat.flatMap { info.codec == "rawvideo" ? $0 : nil } ?? info.codec) "
            + "\(info.width ?? 0)x\(info.height ?? 0)"
    }
}

/// The stall timeout of a snapshot's reads: a read that blocks is interrupted by a stop (the
/// stop signal's flag) or once the device has sent nothing for the timeout (the flag's deadline,
/// moved on by every packet). Used only by the thread running `Snapshooter.run`.
final class ReadDeadline {
    private let interrupt: InterruptFlag
    private let stop: StopSignal
    /// Microseconds.
    private let limit: Int64
    private var lastFed: Int64 = 0

    /// Starts the timeout now.
    init(stop: StopSignal, seconds: Double) {
        self.stop = stop
        interrupt = stop.interrupt
        limit = Int64(seconds * 1e6)
        fed()
    }

    deinit { interrupt.clearDeadline() }

    /// The device delivered: the timeout starts again.
    func fed() {
        lastFed = SessionClock.now()
        interrupt.setDeadline(lastFed + limit)
    }

    /// True when the device sent nothing for the timeout and no stop was asked.
    var passed: Bool { !stop.isRequested && SessionClock.now() >= lastFed + limit }
}
