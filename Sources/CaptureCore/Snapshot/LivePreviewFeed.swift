import Glibc

/// Reads an opened camera for `LivePreview` and leaves its pictures in the server's hub: an
/// MJPEG camera's JPEGs as they came, other pictures decoded (only those the hub wants, unless
/// the codec needs every packet decoded) for the hub's encoder thread. The numbers of
/// `/status.json` are updated four times a second. Used only by the thread running
/// `LivePreview.run`.
final class LivePreviewFeed {
    private let opened: SnapshotSource
    private let hub: PreviewHub
    private let stop: StopSignal
    private let deadline: ReadDeadline
    private let decoder: Decoder
    private let packet: Packet
    private let passesJPEG: Bool
    private let stallTimeout: Double
    private(set) var frames = 0

    init(
        opened: SnapshotSource, hub: PreviewHub, stop: StopSignal, deadline: ReadDeadline, stallTimeout: Double
    ) throws(CaptureError) {
        self.opened = opened
        self.stallTimeout = stallTimeout
        self.hub = hub
        self.stop = stop
        self.deadline = deadline
        passesJPEG = opened.info.codec == "mjpeg"
        decoder = try media("opening the video decoder") { () throws(FFmpegError) in
            try Decoder(input: opened.input, stream: opened.index)
        }
        packet = try media("reading") { () throws(FFmpegError) in try Packet() }
    }

    /// Reads until a stop.
    ///
    /// - Throws: the device stalled, was lost, ended or failed (74).
    func run() throws(CaptureError) {
        let started = SessionClock.now()
        var progress = Cadence(every: 250_000)
        var window = (time: started, frames: 0)
        let decodesAll = !opened.info.isIntraOnly
        hub.update { $0.state = "serving" }
        while !stop.isRequested {
            guard try read() else { return }
            guard packet.streamIndex == opened.index else { continue }
            deadline.fed()
            frames += 1
            let now = SessionClock.now()
            let time = packet.pts.map { Int64(Double($0) * opened.info.timeBase.doubleValue * 1e6) } ?? now - started
            let wanted = hub.wants(time: time)
            if passesJPEG && wanted && packet.isWholeJPEG {
                hub.publish(jpeg: packet.bytes, width: opened.info.width ?? 0, height: opened.info.height ?? 0)
            } else if !passesJPEG && (wanted || decodesAll) {
                decode(offering: wanted)
            }
            if progress.due(now) {
                let span = Double(now - window.time) / 1e6
                let frames = frames
                let fps = span > 0 ? Double(frames - window.frames) / span : 0
                if now - window.time >= 1_000_000 { window = (now, frames) }
                hub.update {
                    $0.elapsed = Double(now - started) / 1e6
                    $0.frames = frames
                    $0.fps = fps
                }
            }
        }
    }

    /// Decodes `packet`; its picture goes to the hub when `offering`.
    private func decode(offering: Bool) {
        do throws(FFmpegError) {
            try decoder.send(packet)
            while true {
                let frame = try Frame()
                guard try decoder.receive(into: frame) else { break }
                if offering && !frame.isCorrupt { hub.offer(frame) }
            }
        } catch {
            LibraryLog.shared.verbose("preview: a frame did not decode: \(error)")
        }
    }

    /// Reads the next packet; a transient error is read again until the stall timeout.
    ///
    /// - Returns: false when a stop came.
    private func read() throws(CaptureError) -> Bool {
        let url = opened.source.url
        while true {
            if stop.isRequested { return false }
            let got: Bool
            do throws(FFmpegError) {
                got = try opened.input.read(into: packet)
            } catch {
                if stop.isRequested { return false }
                if deadline.passed {
                    throw .io(
                        subject: url,
                        reason: "no frame within \(DurationValue.text(stallTimeout)) s; the device stalled")
                }
                guard ReadRetry.isTransient(error, device: opened.device) else {
                    switch error.errno {
                    case .noSuchDevice, .noSuchDeviceOrAddress, .ioError:
                        throw .io(subject: url, reason: "the device was lost: \(error)")
                    default: throw .io(subject: url, reason: "reading failed: \(error)")
                    }
                }
                usleep(ReadRetry.pause)
                continue
            }
            if got { return true }
            throw .io(subject: opened.device.name, reason: "the source ended after \(frames) frames")
        }
    }
}
