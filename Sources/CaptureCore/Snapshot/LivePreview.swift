import FoundationEssentials
import Glibc

/// `capture serve`: a camera's live picture and numbers over HTTP with nothing recorded, as a
/// preview server (ustreamer, mjpg-streamer) does. The same server as a recording's `--serve`
/// (`PreviewServer`), fed from a device opened as a snapshot opens it (`SnapshotSource`).
///
/// The address is taken when it is made, before the device opens. An MJPEG camera's pictures
/// pass as they came; others are decoded only while someone watches and a picture is due. Not
/// thread-safe: call `run` from one thread; stop it through its `StopSignal`.
public final class LivePreview {
    public let device: DeviceName
    private let request: SnapshotRequest
    private let stop: StopSignal
    /// The server, listening since `init`.
    public let server: PreviewServer

    /// What a preview run did: the device, what it delivered, the pictures made.
    public struct Summary: Sendable, Codable {
        public var device: String
        public var input: String
        /// Frames read from the device.
        public var frames: Int
        /// Pictures made for the viewers (passed through or encoded).
        public var pictures: Int
        /// Seconds served.
        public var duration: Double
    }

    /// Takes the address (`PreviewServer.init`).
    ///
    /// - Parameters:
    ///   - device: the camera, as the user named it.
    ///   - videoSize, inputFormat: the mode to ask for; nil: the largest size, the format mode
    ///     selection chooses.
    /// - Throws: the server's errors (73 for an address in use, 64 beyond loopback without a token).
    public init(
        device: DeviceName, videoSize: FrameDimensions?, inputFormat: String?, stallTimeout: Double,
        settings: PreviewSettings, stop: StopSignal
    ) throws(CaptureError) {
        self.device = device
        var request = SnapshotRequest(device: device, output: "preview.jpg")
        request.videoSize = videoSize
        request.inputFormat = inputFormat
        request.stallTimeout = stallTimeout
        self.request = request
        self.stop = stop
        server = try PreviewServer(settings: settings)
    }

    /// Opens the device and serves until a stop.
    ///
    /// - Parameter onStart: called once the device delivers, with its name and what it sends.
    /// - Throws: the device's errors as for a recording (66, 69, 75, 77); a device that stalls,
    ///   is lost or ends (74).
    public func run(onStart: (String, String) -> Void = { _, _ in }) throws(CaptureError) -> Summary {
        let resolved = try DeviceResolver.resolve(device, kind: .video)
        let deadline = ReadDeadline(stop: stop, seconds: request.stallTimeout)
        server.setDevices([resolved.name])
        server.start()
        defer { server.stop() }
        guard let opened = try SnapshotSource.open(resolved, request: request, stop: stop, deadline: deadline) else {
            return Summary(device: resolved.name, input: "", frames: 0, pictures: 0, duration: 0)
        }
        onStart(resolved.name, opened.inputDescription)
        let feed = try LivePreviewFeed(
            opened: opened, hub: server.hub, stop: stop, deadline: deadline, stallTimeout: request.stallTimeout)
        let started = SessionClock.now()
        try feed.run()
        let status = server.hub.currentStatus
        return Summary(
            device: resolved.name, input: opened.inputDescription, frames: feed.frames, pictures: status.pictures,
            duration: Double(SessionClock.now() - started) / 1e6)
    }
}
