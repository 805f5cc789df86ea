/// Opening a camera's encoder: the first of the plan's H.264 encoders that opens (a hardware one,
/// or x264 with the preset its budget chose), or the raw encoder the container takes.
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

    /// Opens the camera's encoder with the negotiated `settings`. A hardware encoder that does
    /// not open (no driver for the GPU, a size it does not take) gives way to the next, with one
    /// warning saying why once x264 records instead.
    ///
    /// - Parameter budget: the camera's encoder budget (`measureBudgets`), for x264's preset.
    /// - Throws: `.notSupported` (69) naming the encoder and FFmpeg's reason when the one encoder
    ///   asked for does not open; `.failed` when x264 or the raw encoder does not.
    func openEncoder(_ plan: RecordingPlan.Video, settings: Encoder.VideoSettings, budget: EncoderBudget?)
        throws(CaptureError) -> OpenedEncoder
    {
        let name = CodecChoice.encoderName(plan.codec, in: self.plan.container)
        guard name == "libx264", !plan.encoders.isEmpty else {
            let encoder = try media("opening the \(name) encoder") { () throws(FFmpegError) in
                try Encoder(video: name, settings, globalHeader: wantsGlobalHeader)
            }
            return OpenedEncoder(encoder: encoder, pixelFormat: settings.pixelFormat, budget: nil)
        }
        var failures: [String] = []
        for candidate in plan.encoders {
            guard candidate.isHardware, let device = candidate.device else {
                let opened = try openX264(plan, settings: settings, budget: budget)
                if !failures.isEmpty {
                    onWarning("\(plan.device.name): \(failures.joined(separator: "; ")); recording with libx264")
                }
                return opened
            }
            var trial = settings
            trial.options = [:]
            trial.pixelFormat = PixelFormat(name: candidate.pixelFormat) ?? .yuv420p
            // Not every hardware encoder writes the full-range flag: its pictures are converted.
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
                guard plan.encoders.count > 1 else {
                    throw .notSupported(
                        device: candidate.encoderName,
                        reason: "does not open on \(device) (\(error)); \(.encoder, "x264") encodes in software")
                }
                failures.append("\(candidate.encoderName) does not open on \(device) (\(error))")
            }
        }
        throw .failed("\(plan.device.name): no H.264 encoder opened: \(failures.joined(separator: "; "))")
    }

    /// x264 with the preset its budget settled (`measureBudgets`), or as planned.
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

    /// The encoder budget of each camera (in `plan.videos`' order) that x264 records in real time:
    /// a live source whose first encoder to try is x264; nil for the others. Measured before any
    /// device opens, at the mode the camera is asked for: a camera streaming meanwhile would fill
    /// its buffers with frames taken before the recording, which would then count as late and
    /// move its start.
    ///
    /// - Throws: `.failed` when x264 does not open with the settings (what the recording's own
    ///   encoder would have met).
    func measureBudgets() throws(CaptureError) -> [EncoderBudget?] {
        var budgets: [EncoderBudget?] = []
        for video in plan.videos {
            guard video.encoders.first?.choice == .x264, video.source.live, let size = video.source.frameSize,
                let rate = video.source.frameRate
            else {
                budgets.append(nil)
                continue
            }
            let expected = MediaStreamInfo(
                kind: .video, codec: "rawvideo", width: size.width, height: size.height, frameRate: rate,
                timeBase: Rational(1, 1_000_000))
            let settled = try VideoNegotiation.negotiate(
                video, input: expected, container: plan.container, withAudio: plan.audio != nil,
                keyframeSeconds: plan.clips == nil ? 2 : 1)
            guard let settings = settled.settings else {
                budgets.append(nil)
                continue
            }
            budgets.append(try measureBudget(video, settings: settings, inputCodec: video.source.mode?.inputFormat))
        }
        return budgets
    }

    /// Times x264 at the camera's size and rate with the preset asked, or chooses the preset
    /// (`PresetBudget`), and warns when it chose a faster one or none keeps up (the summary has it
    /// in any case). Takes up to about half a second per preset tried.
    private func measureBudget(_ plan: RecordingPlan.Video, settings: Encoder.VideoSettings, inputCodec: String?)
        throws(CaptureError) -> EncoderBudget
    {
        let mode = PresetBudget.Mode(width: settings.width, height: settings.height, rate: settings.frameRate)
        // Half a second of frames, 8 at least, or what x264 encodes in half a second when slower.
        let frames = max(8, min(30, Int(settings.frameRate.doubleValue / 2)))
        let budget = try PresetBudget.settle(mode, asked: plan.presetAsked, offered: plan.offeredModes) {
            (preset) throws(CaptureError) in
            var trial = settings
            trial.options["preset"] = preset
            return try media("measuring the x264 encoder") { () throws(FFmpegError) in
                try EncoderSpeed.measure("libx264", trial, frames: frames, seconds: 0.5)
            }
        }
        guard budget.isNews else { return budget }
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
