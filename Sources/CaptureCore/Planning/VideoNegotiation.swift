/// What a camera's stream is recorded as, settled once, after the device opened, from the plan
/// and what the device reports: the frame rate of the recording's frame grid, the size and pixel
/// format pictures are converted to, and the encoder's settings.
///
/// Pure: the same plan and report give the same answer, so it is tested with recorded driver
/// answers. Opening a recording builds the decoder, converter and encoder from it, and nothing
/// after decides any of these again.
struct VideoNegotiation {
    /// Frames per second of the frame grid: the device's own rate, else the plan's, else 30.
    let rate: Rational
    /// What pictures are converted to before encoding (the input's own size for a copy).
    let width: Int
    let height: Int
    let pixelFormat: PixelFormat
    /// The encoder's settings; nil when the camera's packets are copied.
    let settings: Encoder.VideoSettings?
    /// True when a raw frame is the very frame the output holds (same size and pixel format, raw
    /// out, a muxer that writes it as it comes), so it may go to the muxer as it came.
    let passesThrough: Bool
    /// True when full-range pictures (a JPEG's) are encoded as they are, the stream tagged full
    /// range, instead of converted to limited range first (`PictureConverter.keepsFullRange`).
    var keepsFullRange = false
    /// What to tell the user about the choice (an odd frame size scaled for H.264); nil when
    /// nothing.
    let warning: String?

    /// Settles the recording of `plan`'s camera from `info`, what its demuxer reports once open.
    ///
    /// - Parameters:
    ///   - container: the recording's container (raw pixel formats depend on it).
    ///   - withAudio: true when a microphone is recorded too (some containers then refuse raw
    ///     pixel formats they take alone).
    ///   - keyframeSeconds: seconds between H.264 keyframes: 2, or 1 for event clips, which start
    ///     at one.
    /// - Throws: `CaptureError.notSupported` (69) when the driver applied another size or rate
    ///   than the mode asked; `.plan` when raw pictures of the chosen pixel format cannot go into
    ///   the container.
    static func negotiate(
        _ plan: RecordingPlan.Video, input info: MediaStreamInfo, container: ContainerFormat, withAudio: Bool,
        keyframeSeconds: Double = 2
    ) throws(CaptureError) -> VideoNegotiation {
        let source = plan.source
        try checkApplied(source.mode, by: info, url: source.url, checksRate: true)
        let width = info.width ?? 0
        let height = info.height ?? 0
        var rate = info.frameRate ?? source.frameRate ?? Rational(30, 1)
        if rate.doubleValue > 1000 || rate.doubleValue <= 0 { rate = Rational(30, 1) }
        let inputFormat = info.pixelFormat.flatMap { PixelFormat(name: $0) }
        var target = (width: width, height: height, format: inputFormat ?? .yuv420p)
        var warning: String?
        switch plan.codec {
        case .copy:
            return VideoNegotiation(
                rate: rate, width: width, height: height, pixelFormat: target.format, settings: nil,
                passesThrough: false, warning: nil)
        case .h264:
            target.format = plan.pixelFormat.flatMap { PixelFormat(name: $0) } ?? .yuv420p
            let even = (width: max(2, width & ~1), height: max(2, height & ~1))
            if even.width != width || even.height != height {
                warning =
                    "\(width)x\(height) is an odd frame size, which H.264 in 4:2:0 cannot hold; "
                    + "scaling to \(even.width)x\(even.height)"
                (target.width, target.height) = even
            }
        case .raw:
            if let name = plan.pixelFormat, let format = PixelFormat(name: name) { target.format = format }
            do {
                try RawPictureFormats.check(target.format.name, in: container, withAudio: withAudio)
            } catch { throw .plan(error) }
        }
        var settings = Encoder.VideoSettings(
            width: target.width, height: target.height, pixelFormat: target.format, frameRate: rate,
            keyframeInterval: plan.codec == .h264 ? max(1, Int(keyframeSeconds * rate.doubleValue)) : 1,
            bitRate: plan.bitRate ?? 0, options: plan.codec == .h264 ? plan.x264Options : [:])
        // A JPEG's full range is kept: converting it to limited range costs libswscale as much as
        // decoding the JPEG, and full-range H.264 is legal, its players honour the flag. A pixel
        // format asked for is given as ffmpeg's -pix_fmt gives it: plain yuv420p is limited range.
        let fullRange =
            plan.codec == .h264 && plan.pixelFormat == nil
            && (info.codec == "mjpeg" || inputFormat?.isDeprecatedFullRange == true)
        if plan.codec == .h264 {
            // The converter writes limited-range YUV from a camera's own YUV, full-range from a
            // JPEG's; JPEG's matrix is BT.601. Tagged, players need not guess.
            settings.colorRange = fullRange ? .full : .limited
            settings.bt601 = info.codec == "mjpeg"
        }
        let passesThrough =
            plan.codec == .raw && container.muxer != "yuv4mpegpipe" && inputFormat != nil
            && (target.width, target.height, target.format) == (width, height, inputFormat ?? .yuv420p)
        var settled = VideoNegotiation(
            rate: rate, width: target.width, height: target.height, pixelFormat: target.format, settings: settings,
            passesThrough: passesThrough, warning: warning)
        settled.keepsFullRange = fullRange
        return settled
    }

    /// Checks that the driver applied the mode asked for: it may quietly apply another size or
    /// rate, and then nothing is recorded or taken rather than something else.
    ///
    /// - Parameters:
    ///   - mode: the camera mode asked for; nil (a test source, a lavfi graph) checks nothing.
    ///   - checksRate: also the frame rate, unless the mode takes it from the input; a rate off
    ///     by more than 1% counts.
    /// - Throws: `CaptureError.notSupported` (69) naming `url`.
    static func checkApplied(_ mode: VideoMode?, by info: MediaStreamInfo, url: String, checksRate: Bool)
        throws(CaptureError)
    {
        guard let mode else { return }
        let width = info.width ?? 0
        let height = info.height ?? 0
        if mode.width != width || mode.height != height {
            throw .notSupported(device: url, reason: "asked for \(mode) but the driver applied \(width)x\(height)")
        }
        if checksRate, let rate = mode.frameRate, !mode.rateFromInput, let applied = info.frameRate,
            abs(applied.doubleValue - rate.doubleValue) > rate.doubleValue * 0.01
        {
            throw .notSupported(
                device: url, reason: "asked for \(mode) but the driver applied \(applied.decimalDescription) fps")
        }
    }
}
