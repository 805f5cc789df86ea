/// Opening a camera's encoder: the first of the plan's H.264 encoders that opens (a hardware one,
/// or x264 with the preset its budget chose), or the raw encoder the container takes.
///
/// For a live camera whose mode is known, the choice is made before any device opens
/// (`chooseEncoders`): each hardware encoder is opened at the expected size and let go, and x264's
/// budget is measured, so that a camera streaming meanwhile does not fill its buffers with frames
/// taken before the recording (they would count as late and move its start). For the others (a
/// lavfi graph, whose size is its own) the fallback happens as the encoder opens.
extension RecordingSession {
    /// The encoder a camera records through, the pixel format pictures are converted to for it,
    /// and for x264 in real time its budget.
    struct OpenedEncoder {
        let encoder: Encoder
        let pixelFormat: PixelFormat
        let budget: EncoderBudget?
        /// Full-range pictures go to the encoder as they are (`VideoNegotiation.keepsFullRange`).
        var keepsFullRange = false
    }

    /// What a camera's encoder opens with: the H.264 encoders left to try, and x264's budget.
    struct EncoderChoice {
        var candidates: [EncoderCandidate]
        var budget: EncoderBudget?
    }

    /// The encoder choice of each camera, in `plan.videos`' order, made before any device opens
    /// for a live camera whose mode is known: the first hardware encoder that opens at the mode's
    /// size, else x264 with its budget (`measureBudget`), with one warning naming what did not
    /// open. Other cameras keep the plan's candidates.
    ///
    /// - Throws: `.notSupported` (69) when the one hardware encoder asked for does not open;
    ///   `.failed` when x264 does not (what the recording's own encoder would have met).
    func chooseEncoders() throws(CaptureError) -> [EncoderChoice] {
        var choices: [EncoderChoice] = []
        // Cameras that x264 may encode share the cores (an unpaced graph takes all it can get).
        let sharing = plan.videos.filter { $0.encoders.contains { !$0.isHardware } }.count
        for video in plan.videos {
            var choice = EncoderChoice(candidates: video.encoders, budget: nil)
            defer { choices.append(choice) }
            guard !video.encoders.isEmpty, let settings = try expectedSettings(video) else { continue }
            // A camera another program streams is refused before the timing, as opening it would.
            if let path = video.device.v4l2?.path, V4L2Handle.isStreamedElsewhere(path: path),
                let busy = CaptureError.opening(video.device, failedWith: .busy)
            {
                throw busy
            }
            var failures: [String] = []
            for candidate in video.encoders {
                guard candidate.isHardware else {
                    choice.candidates = [candidate]
                    do {
                        choice.budget = try measureBudget(
                            video, settings: settings, inputCodec: video.source.mode?.inputFormat, sharing: sharing)
                    } catch {
                        // Advice only: a size the test picture cannot have (16384x16384) records as
                        // without it, and the device or the encoder says what is wrong as it opens.
                        if stop.interrupt.isRaised { throw error }
                    }
                    break
                }
                do {
                    _ = try openHardware(candidate, settings: settings, planned: video.encoders)
                    choice.candidates = [candidate]
                    break
                } catch {
                    guard case .fallback(let reason) = error else { throw error.error }
                    failures.append(reason)
                }
            }
            if !failures.isEmpty {
                onWarning("\(video.device.name): \(failures.joined(separator: "; ")); recording with libx264")
            }
        }
        return choices
    }

    /// The encoder settings a live camera will be negotiated to at the mode it is asked for; nil
    /// when the size or rate is not known before it opens.
    private func expectedSettings(_ video: RecordingPlan.Video) throws(CaptureError) -> Encoder.VideoSettings? {
        guard video.source.live, let size = video.source.frameSize, let rate = video.source.frameRate else {
            return nil
        }
        let expected = MediaStreamInfo(
            kind: .video, codec: video.source.mode?.inputFormat == "mjpeg" ? "mjpeg" : "rawvideo", width: size.width,
            height: size.height, frameRate: rate, timeBase: Rational(1, 1_000_000))
        return try VideoNegotiation.negotiate(
            video, input: expected, container: plan.container, withAudio: plan.audio != nil,
            keyframeSeconds: plan.clips == nil ? 2 : 1
        ).settings
    }

    /// Opens the camera's encoder with the negotiated `settings`: the first of `choice`'s
    /// candidates that opens (a hardware encoder that does not, giving way to the next with one
    /// warning once x264 records instead), x264 with the budget's preset, or the raw encoder.
    ///
    /// - Throws: `.notSupported` (69) naming the encoder and FFmpeg's reason when the one encoder
    ///   asked for does not open; `.failed` when x264 or the raw encoder does not.
    func openEncoder(_ plan: RecordingPlan.Video, settings: Encoder.VideoSettings, choice: EncoderChoice)
        throws(CaptureError) -> OpenedEncoder
    {
        let name = CodecChoice.encoderName(plan.codec, in: self.plan.container)
        guard name == "libx264", !choice.candidates.isEmpty else {
            let encoder = try media("opening the \(name) encoder") { () throws(FFmpegError) in
                try Encoder(video: name, settings, globalHeader: wantsGlobalHeader)
            }
            return OpenedEncoder(encoder: encoder, pixelFormat: settings.pixelFormat, budget: nil)
        }
        var failures: [String] = []
        for candidate in choice.candidates {
            guard candidate.isHardware else {
                let opened = try openX264(plan, settings: settings, budget: choice.budget)
                if !failures.isEmpty {
                    onWarning("\(plan.device.name): \(failures.joined(separator: "; ")); recording with libx264")
                }
                return opened
            }
            do {
                return try openHardware(candidate, settings: settings, planned: plan.encoders)
            } catch {
                guard case .fallback(let reason) = error else { throw error.error }
                failures.append(reason)
            }
        }
        throw .failed("\(plan.device.name): no H.264 encoder opened: \(failures.joined(separator: "; "))")
    }

    /// Why a hardware encoder did not open: a reason to try the next one, or the error that ends
    /// the recording when it was the only one asked for.
    enum HardwareFailure: Error {
        case fallback(String)
        case fatal(CaptureError)

        var error: CaptureError {
            switch self {
            case .fallback(let reason): .failed(reason)
            case .fatal(let error): error
            }
        }
    }

    /// Opens a hardware encoder on its device at `settings`' size, in the pixel format it takes
    /// (VA-API through a pool of GPU surfaces), limited range, as not every one writes the
    /// full-range flag.
    ///
    /// - Throws: `.fatal(.notSupported)` (69) when it does not open and it is the only one
    ///   `planned`; `.fallback` with the reason otherwise.
    private func openHardware(
        _ candidate: EncoderCandidate, settings: Encoder.VideoSettings, planned: [EncoderCandidate]
    ) throws(HardwareFailure) -> OpenedEncoder {
        let device = candidate.device ?? ""
        var trial = settings
        trial.options = [:]
        trial.pixelFormat = PixelFormat(name: candidate.pixelFormat) ?? .yuv420p
        if trial.colorRange == .full { trial.colorRange = .limited }
        do {
            let hardware =
                candidate.choice == .vaapi
                ? try HardwareFrames(
                    vaapi: device, width: trial.width, height: trial.height, softwareFormat: trial.pixelFormat)
                : nil
            let encoder = try Encoder(
                video: candidate.encoderName, trial, globalHeader: wantsGlobalHeader, hardware: hardware)
            return OpenedEncoder(encoder: encoder, pixelFormat: trial.pixelFormat, budget: nil)
        } catch {
            guard planned.count > 1 else {
                throw .fatal(
                    .notSupported(
                        device: candidate.encoderName,
                        reason: "does not open on \(device) (\(error)); \(.encoder, "x264") encodes in software"))
            }
            throw .fallback("\(candidate.encoderName) does not open on \(device) (\(error))")
        }
    }

    /// x264 with the preset its budget settled (`chooseEncoders`), or as planned.
    private func openX264(_ plan: RecordingPlan.Video, settings: Encoder.VideoSettings, budget: EncoderBudget?)
        throws(CaptureError) -> OpenedEncoder
    {
        var settings = settings
        if let budget { settings.options["preset"] = budget.preset }
        let encoder = try media("opening the libx264 encoder") { () throws(FFmpegError) in
            try Encoder(video: "libx264", settings, globalHeader: wantsGlobalHeader)
        }
        return OpenedEncoder(
            encoder: encoder, pixelFormat: settings.pixelFormat, budget: budget,
            keepsFullRange: settings.colorRange == .full)
    }

    /// Times x264 at the camera's size and rate with the preset asked, or chooses the preset
    /// (`PresetBudget`), and warns when it chose a faster one or none keeps up (the summary has it
    /// in any case). Takes about half a second per preset tried, 2 s at most (`EncoderSpeed`).
    private func measureBudget(
        _ plan: RecordingPlan.Video, settings: Encoder.VideoSettings, inputCodec: String?, sharing: Int
    ) throws(CaptureError) -> EncoderBudget {
        let mode = PresetBudget.Mode(width: settings.width, height: settings.height, rate: settings.frameRate)
        // Half a second of frames, 8 at least, or what x264 encodes in half a second when slower.
        let frames = max(8, min(30, Int(settings.frameRate.doubleValue / 2)))
        let budget = try PresetBudget.settle(
            mode, asked: plan.presetAsked, offered: plan.offeredModes, sharing: sharing
        ) {
            (preset) throws(CaptureError) in
            var trial = settings
            trial.options["preset"] = preset
            return try media("measuring the x264 encoder") { () throws(FFmpegError) in
                try EncoderSpeed.measure(
                    "libx264", trial, frames: frames, seconds: 0.5, noisy: plan.device.api != .test,
                    interrupt: stop.interrupt)
            }
        }
        guard budget.isNews, !stop.interrupt.isRaised else { return budget }
        // A camera's own MJPEG or H.264 kept as it comes costs next to nothing.
        let copy =
            budget.keepsUp || !["mjpeg", "h264"].contains(inputCodec ?? "")
            ? ""
            : "; or copy what the camera sends (\(inputCodec == "mjpeg" ? "MJPEG, into .mkv or .avi" : "H.264")), "
                + "which costs almost nothing"
        onWarning("\(plan.device.name): \(budget.line)\(copy)")
        return budget
    }
}
