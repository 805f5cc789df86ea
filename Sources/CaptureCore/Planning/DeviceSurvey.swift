/// What the devices of a recording report before any of them opens for recording: each resolved
/// device, and the camera's modes or the microphone's formats as its probe found them. The input
/// of `RecordingPlanner`, which decides from it without touching a device; tests build one from
/// recorded driver answers.
public struct DeviceSurvey: Sendable {
    /// One resolved device and its probe.
    public struct Entry: Sendable {
        public var device: Device
        /// The camera's formats, sizes and intervals (V4L2 cameras only).
        public var camera: CameraProbe?
        /// The microphone's rates, channels and formats (ALSA and PulseAudio only).
        public var microphone: MicrophoneProbe?

        public init(device: Device, camera: CameraProbe? = nil, microphone: MicrophoneProbe? = nil) {
            self.device = device
            self.camera = camera
            self.microphone = microphone
        }
    }

    /// The cameras, in the order the request names them.
    public var cameras: [Entry]
    /// The devices hardware H.264 encoders run on; nil: scanned when a plan needs them.
    var hardwareEncoders: HardwareEncoderDevices?
    /// The microphones, in the order the request names them.
    public var microphones: [Entry]

    /// The first camera.
    public var video: Entry? { cameras.first }
    /// The first microphone.
    public var audio: Entry? { microphones.first }

    public init(video: Entry? = nil, audio: Entry? = nil) {
        cameras = video.map { [$0] } ?? []
        microphones = audio.map { [$0] } ?? []
    }

    public init(cameras: [Entry], microphones: [Entry]) {
        self.cameras = cameras
        self.microphones = microphones
    }

    /// The first V4L2 camera `capture list` shows: what a recording without a named device uses.
    ///
    /// - Throws: `CaptureError.deviceNotFound` (66) when there is none, pointing at the test pattern.
    public static func defaultCamera() throws(CaptureError) -> Device {
        guard let camera = DeviceDiscovery.list(video: true, audio: false).cameras.first(where: { $0.api == .v4l2 })
        else {
            throw .deviceNotFound(
                device: "camera", valid: [],
                hint: "no camera found; record the built-in test pattern with \(.video, "test")")
        }
        return camera
    }

    /// Probes a resolved device of `kind` (V4L2 ioctls, libasound's hardware parameters, the
    /// PulseAudio server); the test source and lavfi graphs need no probe.
    ///
    /// - Throws: the probers' errors: busy (75), permission (77), missing (66), not a capture
    ///   device (69).
    public static func entry(for device: Device, kind: Device.Kind) throws(CaptureError) -> Entry {
        switch device.api {
        case .v4l2 where kind == .video:
            return Entry(device: device, camera: try CameraProber.probe(path: device.v4l2?.path ?? device.name))
        case .alsa, .pulse:
            return Entry(device: device, microphone: try MicrophoneProber.probe(device))
        default:
            return Entry(device: device)
        }
    }
}
