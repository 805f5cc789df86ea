import FoundationEssentials
import Glibc

/// How a resolved device is opened through libavdevice: which input format, which URL, which
/// options, and whether it runs in real time.
struct InputSource: Sendable {
    /// The device as resolved, for messages.
    let device: Device
    let kind: Device.Kind
    /// libavdevice input name: `lavfi`, `v4l2`, `alsa`, `pulse`.
    let format: String
    /// The device name or graph `avformat_open_input` takes.
    var url: String
    /// Options of the input (`video_size`, `framerate`, `input_format`, `sample_rate`, `channels`).
    let options: [String: String]
    /// True for devices that produce in real time (cameras, microphones, the paced test sources);
    /// false for an unpaced lavfi graph, which is read as fast as the encoder takes it.
    let live: Bool
    /// A forced clock domain for timestamps (lavfi graphs count media time); nil: detect.
    let clock: TimestampMapper.Domain?
    /// The frame rate to record at when the input does not declare one.
    var frameRate: Rational?
    /// The frame size a live video source is asked for (the camera's mode, the test pattern's);
    /// nil for a lavfi graph, whose size is its own.
    var frameSize: FrameDimensions? = nil
    /// The camera mode chosen from the probe (V4L2 only); the opened stream must match it.
    var mode: VideoMode? = nil
    /// How a microphone is opened and what it is converted to (ALSA and PulseAudio only).
    var audioPlan: AudioFormatPlan? = nil
    /// A camera read by capture's own V4L2 reader (`V4L2Stream`) rather than FFmpeg's; nil for
    /// the others.
    var native: V4L2Stream.Request? = nil

    /// The `format` of a camera read by capture's own V4L2 reader.
    static let nativeFormat = "v4l2 (native)"

    /// A camera read by capture's own V4L2 reader: every camera in a format it reads unless
    /// FFmpeg's reader is asked for; always one that captures through the multiplanar API only,
    /// which FFmpeg 5.1's v4l2 input lacks, or an input with DV timings (an HDMI grabber), whose
    /// source changes and lost signal FFmpeg's input does not see (it keeps streaming the old
    /// mode, or stops without a word).
    private static func nativeCamera(
        _ device: Device, kind: Device.Kind, path: String, mode: VideoMode, buffers: Int?
    ) -> InputSource {
        var source = InputSource(
            device: device, kind: kind, format: nativeFormat, url: path, options: [:], live: true, clock: nil,
            frameRate: mode.frameRate)
        source.mode = mode
        source.frameSize = mode.size
        source.native = V4L2Stream.Request(
            path: path, fourcc: mode.fourcc, width: mode.width, height: mode.height,
            frameRate: mode.rateFromInput ? nil : mode.frameRate, multiplanar: mode.multiplanar,
            buffers: NativeV4L2Formats.bufferCount(requested: buffers, rate: mode.frameRate))
        return source
    }

    /// What is asked of a microphone: converted to afterwards when the device does not have it.
    struct AudioWish: Hashable, Sendable {
        var sampleRate: Int?
        var channels: Int?
        var sampleFormat: SampleFormat?
    }

    /// The input for `device` as a source of `kind`, from what its probe reported. Pure: nothing
    /// is opened.
    ///
    /// - Parameters:
    ///   - video: the frame size, rate and format asked of a camera or the test pattern.
    ///   - audio: the rate, channels and sample format asked of a microphone.
    ///   - camera: the camera's probe (V4L2 devices); `microphone`: the microphone's (ALSA, PulseAudio).
    /// - Throws: `CaptureError.usage` for options that do not apply to the device, the mode
    ///   selector's and format chooser's errors for what the device cannot do.
    static func make(
        _ device: Device, kind: Device.Kind, video: VideoRequest = VideoRequest(), audio: AudioWish = AudioWish(),
        camera: CameraProbe? = nil, microphone: MicrophoneProbe? = nil
    ) throws(CaptureError) -> InputSource {
        switch device.api {
        case .test: return try testSource(device, kind: kind, video: video)
        case .lavfi: return try lavfiGraph(device, kind: kind, video: video)
        case .v4l2:
            // The mode comes from the camera's own list (what ffmpeg gets wrong: it asks the driver
            // for the size and takes whatever format and rate come back).
            let path = device.v4l2?.path ?? device.name
            guard let camera else { throw .failed("\(path): the camera's modes were not probed") }
            let mode = try ModeSelector.select(video, from: camera)
            if mode.multiplanar && video.reader == .ffmpeg {
                throw .notSupported(
                    device: path,
                    reason: "FFmpeg's v4l2 input cannot read a multiplanar-only camera; leave out \(.v4l2Reader)")
            }
            // Only the own reader reads a multiplanar-only camera or sees an HDMI source change; it
            // reads every other format it knows too, since it keeps the driver's drop count and uses
            // less memory (README, "Cameras: capture's own V4L2 reader"). A camera's own H.264 stays
            // FFmpeg's.
            let needsOwn = mode.multiplanar || camera.input?.dvTimings == true
            let readable = NativeV4L2Formats.entry(fourcc: mode.fourcc) != nil
            if video.reader.map({ $0 == .native }) ?? (needsOwn || readable) {
                guard readable else {
                    throw .notSupported(
                        device: path,
                        reason: "capture's own V4L2 reader cannot read \(mode.fourcc.trimmingTrailingSpaces) yet; "
                            + "choose another \(.inputFormat)" + (needsOwn ? "" : " or leave out \(.v4l2Reader)"))
                }
                return nativeCamera(device, kind: kind, path: path, mode: mode, buffers: video.buffers)
            }
            if video.buffers != nil {
                throw .usage(
                    "\(path): \(.buffers) applies to the cameras capture's own V4L2 reader reads; FFmpeg's v4l2 "
                        + "input, which reads this camera, chooses its own")
            }
            var options = ["input_format": mode.inputFormat, "video_size": "\(mode.width)x\(mode.height)"]
            if let rate = mode.frameRate, !mode.rateFromInput { options["framerate"] = rate.description }
            var source = InputSource(
                device: device, kind: kind, format: "v4l2", url: path, options: options, live: true, clock: nil,
                frameRate: mode.frameRate)
            source.mode = mode
            source.frameSize = mode.size
            return source
        case .alsa, .pulse:
            guard let microphone else { throw .failed("\(device.name): the microphone's formats were not probed") }
            return try microphoneSource(device, kind: kind, audio: audio, microphone: microphone)
        }
    }

    /// The built-in test pattern or tone: a lavfi graph paced in real time.
    private static func testSource(_ device: Device, kind: Device.Kind, video: VideoRequest) throws(CaptureError)
        -> InputSource
    {
        guard kind == .video else {
            return InputSource(
                device: device, kind: kind, format: "lavfi", url: TestSources.audioGraph + ",arealtime", options: [:],
                live: true, clock: .media, frameRate: nil)
        }
        let size = video.frameSize ?? FrameDimensions(width: 640, height: 480)
        let rate = video.frameRate ?? Rational(30, 1)
        // `realtime` paces the graph like a camera; without it lavfi runs as fast as it can.
        // testsrc2 silently rounds an odd size down when it negotiates 4:2:0; 4:4:4 keeps
        // every size, as a camera with an odd size would deliver it.
        let odd = size.width % 2 == 1 || size.height % 2 == 1
        if let name = video.inputFormat {
            throw ModeSelector.fixedFormatError(
                name, device: device.name, delivers: "the test source delivers \(odd ? "yuv444p" : "yuv420p") only")
        }
        let format = odd ? ",format=yuv444p" : ""
        let graph = "testsrc2=size=\(size):rate=\(rate)\(format),realtime"
        var source = InputSource(
            device: device, kind: kind, format: "lavfi", url: graph, options: [:], live: true, clock: .media,
            frameRate: rate)
        source.frameSize = size
        return source
    }

    /// A `lavfi:` graph, read as fast as it runs; size, rate and format are the graph's own.
    private static func lavfiGraph(_ device: Device, kind: Device.Kind, video: VideoRequest) throws(CaptureError)
        -> InputSource
    {
        guard let graph = device.lavfiGraph else { throw .usage("\(device.name): not a lavfi graph") }
        if kind == .video, let name = video.inputFormat {
            throw ModeSelector.fixedFormatError(
                name, device: device.name, delivers: "a lavfi graph delivers what it ends in; set format= in the graph")
        }
        if kind == .video && (video.frameSize != nil || video.frameRate != nil) {
            throw .usage(
                "\(device.name): \(.videoSize) and \(.frameRate) do not apply to a lavfi graph; set them in the graph")
        }
        return InputSource(
            device: device, kind: kind, format: "lavfi", url: graph, options: [:], live: false, clock: .media,
            frameRate: nil)
    }

    /// An ALSA or PulseAudio microphone, opened in a format, rate and channel count it has
    /// natively; what was asked for is converted afterwards. Asking libasound first also turns
    /// FFmpeg's bare EIO for any open failure into busy (naming the holder), denied or missing.
    private static func microphoneSource(
        _ device: Device, kind: Device.Kind, audio: AudioWish, microphone: MicrophoneProbe
    ) throws(CaptureError) -> InputSource {
        let plan = try AudioFormatChoice.choose(
            for: microphone, sampleRate: audio.sampleRate, channels: audio.channels, sampleFormat: audio.sampleFormat)
        var options = ["sample_rate": "\(plan.sampleRate)", "channels": "\(plan.channels)"]
        let url: String
        if device.api == .pulse {
            url = device.pulse?.source ?? "default"
            options["fragment_size"] = "\(Self.pulseFragmentBytes(plan))"
        } else if case .alsa(let name)? = try? DeviceName(parsing: plan.openName) {
            url = name
        } else {
            url = plan.openName
        }
        var source = InputSource(
            device: device, kind: kind, format: device.api == .pulse ? "pulse" : "alsa", url: url, options: options,
            live: true, clock: nil, frameRate: nil)
        source.audioPlan = plan
        return source
    }

    /// The fragment size FFmpeg's pulse input asks the server for (its `fragment_size` option,
    /// PulseAudio's `fragsize`), in bytes: 20 ms of audio. Left to the server, a record stream's
    /// fragment is about 2 s: the first packet then comes that late, and the recording, which
    /// starts once every device delivers, lost most of its first two seconds; at a stop, what
    /// the server still held was never delivered.
    static func pulseFragmentBytes(_ plan: AudioFormatPlan) -> Int {
        let bytes = ["u8": 1, "alaw": 1, "ulaw": 1, "s16le": 2, "s16be": 2][plan.sampleFormat] ?? 4
        return max(1, plan.sampleRate / 50) * plan.channels * bytes
    }

    /// Opens the input, mapping failures to the user's errors: busy (75), permission (77),
    /// missing (66), a mode the device refused (69), a bad lavfi graph (64). `busMates` names
    /// the cameras streaming already on the same USB controller, for a refusal for bandwidth.
    func open(interrupt: InterruptFlag, busMates: [String] = []) throws(CaptureError) -> InputContainer {
        if let native { return try openNative(native, interrupt: interrupt) }
        do {
            return try InputContainer(
                url: url, format: format, options: options, audioCodec: audioPlan?.codec, interrupt: interrupt)
        } catch {
            throw Self.captureError(error, device: device, mode: mode, busMates: busMates)
        }
    }

    /// Starts a camera through capture's own V4L2 reader, mapping failures as `open` does.
    private func openNative(_ request: V4L2Stream.Request, interrupt: InterruptFlag) throws(CaptureError)
        -> InputContainer
    {
        let stream: V4L2Stream
        do {
            stream = try V4L2Stream(request)
        } catch {
            switch error {
            case .formatRefused(let asked, let got):
                throw .notSupported(device: request.path, reason: "the driver gives \(got) when asked for \(asked)")
            case .call(let failure):
                if failure.call == "VIDIOC_QUERY_DV_TIMINGS" {
                    throw .notSupported(
                        device: request.path,
                        reason: "its input has \(V4L2Stream.signalProblem(failure)) (VIDIOC_QUERY_DV_TIMINGS); "
                            + "connect the source, switch it on, or check its cable")
                }
                if let opening = CaptureError.opening(device, failedWith: failure.errno) { throw opening }
                let what = mode.map { "\($0)" } ?? "this mode"
                throw .notSupported(
                    device: request.path,
                    reason: failure.call == "VIDIOC_STREAMON"
                        ? "the camera refused to start streaming \(what): \(failure.message) (VIDIOC_STREAMON)"
                        : "cannot stream \(what): \(failure.call) failed: \(failure.message)")
            }
        }
        do {
            return try InputContainer(camera: stream, interrupt: interrupt)
        } catch {
            throw .notSupported(device: request.path, reason: "cannot describe its stream to FFmpeg: \(error)")
        }
    }

    /// The user-facing error for an FFmpeg failure on a device.
    ///
    /// - Parameter mode: the camera mode being opened, named in errors about starting the stream.
    static func captureError(_ error: FFmpegError, device: Device, mode: VideoMode? = nil, busMates: [String] = [])
        -> CaptureError
    {
        let name = device.name
        if device.api == .v4l2, let reason = streamStartReason(error, mode: mode, busMates: busMates) {
            return .notSupported(device: device.v4l2?.path ?? name, reason: reason)
        }
        if let failure = CaptureError.opening(device, failedWith: error.errno) { return failure }
        if device.api == .lavfi { return .usage("\(name): the lavfi graph does not open: \(error)") }
        if device.api == .test {
            // The test pattern and tone open whatever the machine; what fails is a size or rate
            // FFmpeg's generators do not make.
            return .notSupported(
                device: name,
                reason: "the test source cannot make what was asked (\(error)); ask for another "
                    + "\(.videoSize) or \(.frameRate)")
        }
        return .notSupported(device: name, reason: "cannot open it as asked: \(error)")
    }

    /// A camera's refusal to start streaming (`VIDIOC_STREAMON`, as FFmpeg's log names it) in the
    /// camera's terms; nil for other failures.
    ///
    /// USB cameras reserve isochronous bandwidth when they start: ENOSPC then means the bus has too
    /// little left for this mode, not a full disk.
    static func streamStartReason(_ error: FFmpegError, mode: VideoMode?, busMates: [String] = []) -> OptionText? {
        let what = mode.map { "\($0)" } ?? "this mode"
        if error.errno == .noSpace {
            let sharing: OptionText =
                busMates.isEmpty
                ? ""
                : "; it shares its USB controller with \(busMates.joined(separator: ", ")), streaming already: "
                    + "give them a compressed format or smaller modes too"
            return "the USB bus has too little bandwidth left to stream \(what) (the driver's ENOSPC at stream start, "
                + "not a full disk); choose a smaller size or a lower rate, a compressed format (\(.inputFormat, "mjpeg")), "
                + "or plug the camera into another USB port or controller\(sharing)"
        }
        guard let line = error.logLine, line.contains("VIDIOC_STREAMON") else { return nil }
        return "the camera refused to start streaming \(what): \(error.message) (VIDIOC_STREAMON)"
    }
}

/// A camera whose source changed mode (`SourceFollower`).
extension InputSource {
    /// The same camera, to be opened again after its source changed mode: its input's DV timings
    /// are set to what the source sends now, and its frame size follows the new signal unless the
    /// grabber scaled it to a size of its own (`previous`, the signal it was opened with, has
    /// another size than the one streamed).
    func following(signal previous: SignalTimings?) -> InputSource {
        var next = self
        guard var request = native else { return next }
        request.adoptsSignal = true
        // The rate is the new signal's: one set for the old would be the old's.
        request.frameRate = nil
        request.sizeFollowsSignal = previous.map { $0.width == request.width && $0.height == request.height } ?? true
        next.native = request
        return next
    }

    /// Takes the mode the camera streams now (`info`, read from it once open) as the one asked of
    /// it, so that it is opened again in that mode after a loss.
    mutating func adopt(_ info: MediaStreamInfo) {
        native?.adoptsSignal = false
        native?.sizeFollowsSignal = false
        guard let width = info.width, let height = info.height else { return }
        frameSize = FrameDimensions(width: width, height: height)
        native?.width = width
        native?.height = height
        mode?.width = width
        mode?.height = height
        if let rate = info.frameRate {
            mode?.frameRate = rate
            frameRate = rate
        }
    }
}
