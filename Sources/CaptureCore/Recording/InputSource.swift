import Foundation

/// How a resolved device is opened through libavdevice: which input format, which URL, which
/// options, and whether it runs in real time.
struct InputSource: Sendable {
    /// The device as resolved, for messages.
    let device: Device
    let kind: Device.Kind
    /// libavdevice input name: `lavfi`, `v4l2`, `alsa`, `pulse`.
    let format: String
    /// The device name or graph `avformat_open_input` takes.
    let url: String
    /// Options of the input (`video_size`, `framerate`, `input_format`, `sample_rate`, `channels`).
    let options: [String: String]
    /// True for devices that produce in real time (cameras, microphones, the paced test sources);
    /// false for an unpaced lavfi graph, which is read as fast as the encoder takes it.
    let live: Bool
    /// A forced clock domain for timestamps (lavfi graphs count media time); nil: detect.
    let clock: TimestampMapper.Domain?
    /// The frame rate to record at when the input does not declare one.
    let frameRate: Rational?

    /// The input for `device` as a source of `kind`, set up for `request`.
    ///
    /// - Throws: `CaptureError.usage` for options that do not apply to the device.
    static func make(_ device: Device, kind: Device.Kind, request: RecordingRequest) throws(CaptureError) -> InputSource {
        switch device.api {
        case .test:
            if kind == .video {
                let size = request.videoSize ?? RecordingRequest.FrameSize(width: 640, height: 480)
                let rate = request.frameRate ?? Rational(30, 1)
                // `realtime` paces the graph like a camera; without it lavfi runs as fast as it can.
                // testsrc2 silently rounds an odd size down when it negotiates 4:2:0; 4:4:4 keeps
                // every size, as a camera with an odd size would deliver it.
                let format = size.width % 2 == 1 || size.height % 2 == 1 ? ",format=yuv444p" : ""
                let graph = "testsrc2=size=\(size):rate=\(rate)\(format),realtime"
                return InputSource(
                    device: device, kind: kind, format: "lavfi", url: graph, options: [:], live: true, clock: .media,
                    frameRate: rate)
            }
            return InputSource(
                device: device, kind: kind, format: "lavfi", url: TestSources.audioGraph + ",arealtime", options: [:],
                live: true, clock: .media, frameRate: nil)
        case .lavfi:
            guard case .lavfi(let graph)? = (try? DeviceName(parsing: device.name)) else {
                throw .usage("\(device.name): not a lavfi graph")
            }
            if kind == .video && (request.videoSize != nil || request.frameRate != nil || request.inputFormat != nil) {
                throw .usage("--video-size, --framerate and --input-format do not apply to a lavfi graph; set them in the graph")
            }
            return InputSource(
                device: device, kind: kind, format: "lavfi", url: graph, options: [:], live: false, clock: .media,
                frameRate: nil)
        case .v4l2:
            var options: [String: String] = [:]
            if let size = request.videoSize { options["video_size"] = size.description }
            if let rate = request.frameRate { options["framerate"] = rate.description }
            if let format = request.inputFormat { options["input_format"] = format }
            let path = device.v4l2?.path ?? device.name
            return InputSource(
                device: device, kind: kind, format: "v4l2", url: path, options: options, live: true, clock: nil,
                frameRate: request.frameRate)
        case .alsa:
            var options: [String: String] = [:]
            if let rate = request.sampleRate { options["sample_rate"] = "\(rate)" }
            if let channels = request.channels { options["channels"] = "\(channels)" }
            let pcm: String
            if case .alsa(let name)? = try? DeviceName(parsing: device.name) { pcm = name } else { pcm = device.name }
            return InputSource(
                device: device, kind: kind, format: "alsa", url: pcm, options: options, live: true, clock: nil,
                frameRate: nil)
        case .pulse:
            var options: [String: String] = [:]
            if let rate = request.sampleRate { options["sample_rate"] = "\(rate)" }
            if let channels = request.channels { options["channels"] = "\(channels)" }
            return InputSource(
                device: device, kind: kind, format: "pulse", url: device.pulse?.source ?? "default", options: options,
                live: true, clock: nil, frameRate: nil)
        }
    }

    /// Opens the input, mapping failures to the user's errors: busy (75), permission (77),
    /// missing (66), a mode the device refused (69), a bad lavfi graph (64).
    func open(interrupt: InterruptFlag) throws(CaptureError) -> InputContainer {
        do {
            return try InputContainer(url: url, format: format, options: options, interrupt: interrupt)
        } catch {
            throw Self.captureError(error, device: device.name, kind: kind, api: device.api)
        }
    }

    /// The user-facing error for an FFmpeg failure on a device.
    static func captureError(_ error: FFmpegError, device: String, kind: Device.Kind, api: Device.API) -> CaptureError {
        switch error.errno {
        case EBUSY?:
            return .busy(device: device, holder: nil)
        case EACCES?, EPERM?:
            return .permissionDenied(device: device, group: kind == .video ? "video" : "audio")
        case ENOENT?, ENODEV?, ENXIO?:
            return .deviceNotFound(device: device, valid: [], hint: nil)
        default:
            if api == .lavfi { return .usage("\(device): the lavfi graph does not open: \(error)") }
            if api == .test { return .failed("\(device): the test source does not open: \(error)") }
            return .notSupported(device: device, reason: "cannot open it as asked: \(error)")
        }
    }
}
