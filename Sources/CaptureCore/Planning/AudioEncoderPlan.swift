internal import CFFmpeg

/// What the audio encoder writes: its name, sample format, rate and channel layout.
///
/// Decided from what the codec takes and what the container holds before the recording opens any
/// device, so a channel count the encoder cannot hold is one clear error (exit 69) rather than
/// FFmpeg's "Unsupported channel layout" after the camera and microphone were opened.
struct AudioEncoderPlan: Equatable, Sendable {
    /// The FFmpeg encoder: `aac`, `libopus`, `flac`, `pcm_s24le`.
    var encoder: String
    /// Private options of the encoder.
    var options: [String: String] = [:]
    /// The sample format the encoder takes (`AVCodecContext.sample_fmt`).
    var sampleFormat: AVSampleFormat
    /// Significant bits when fewer than `sampleFormat` holds (24 for FLAC and `pcm_s24le` from
    /// 32-bit samples), else 0 (`bits_per_raw_sample`).
    var bitsPerRawSample = 0
    /// Samples per second written.
    var sampleRate: Int
    var layout: ChannelLayout
    /// Bits per second for lossy codecs; 0: the encoder's default.
    var bitRate = 0
    /// The sample format the file holds, as `SampleFormat` names it (`s16`, `s24`, `s32`,
    /// `flt`), or FFmpeg's name for the lossy codecs (`fltp`).
    var writtenFormat: String
    /// Lines to say once before recording (a rate the encoder does not take, resampled).
    var notes: [String] = []
}

/// Plans the audio encoder from the codec, the container, the input and the request (the
/// encoder's own lists, `AVCodec.supported_samplerates` and `sample_fmts`, and for channel
/// layouts, which FFmpeg 5.1's encoders do not list, a trial `avcodec_open2`).
enum AudioEncoderPlanner {
    /// The audio the encoder gets, after the recorder's own conversion.
    struct Input: Equatable {
        /// The input's sample format (what the device delivers), as `SampleFormat` names it.
        var format: SampleFormat
        /// The rate to record, in Hz (requested or the device's).
        var sampleRate: Int
        /// The channel count to record (requested or the device's).
        var channels: Int
    }

    /// The `SampleFormat` class of an FFmpeg PCM codec name (`pcm_s24le` is s24), or of a
    /// sample format name (`s32p` is s32); 8-bit and companded formats count as s16, 64-bit
    /// float as flt.
    static func format(ofCodec name: String) -> SampleFormat {
        let body = name.hasPrefix("pcm_") ? String(name.dropFirst(4)) : name
        if body.hasPrefix("s24") || body.hasPrefix("u24") { return .s24 }
        if body.hasPrefix("s32") || body.hasPrefix("u32") { return .s32 }
        if body.hasPrefix("f32") || body.hasPrefix("f64") || body.hasPrefix("flt") || body.hasPrefix("dbl") {
            return .flt
        }
        return .s16
    }

    /// The extensions of the containers that hold PCM in `format`, for a message: `.mkv, .wav`.
    static func containers(holdingPCM format: SampleFormat) -> String {
        ContainerFormat.extensions { $0.holdsAudio && CodecChoice.holds($0, pcm(format).codec) }
    }

    /// The PCM codec, encoder sample format and significant bits of each sample format.
    static func pcm(_ format: SampleFormat) -> (codec: AVCodecID, sample: AVSampleFormat, bits: Int) {
        switch format {
        case .s16: (AV_CODEC_ID_PCM_S16LE, AV_SAMPLE_FMT_S16, 0)
        case .s24: (AV_CODEC_ID_PCM_S24LE, AV_SAMPLE_FMT_S32, 24)
        case .s32: (AV_CODEC_ID_PCM_S32LE, AV_SAMPLE_FMT_S32, 0)
        case .flt: (AV_CODEC_ID_PCM_F32LE, AV_SAMPLE_FMT_FLT, 0)
        }
    }

    /// Plans the encoder.
    ///
    /// - Parameters:
    ///   - device: the microphone's name, for messages.
    ///   - requested: `SampleFormat`, or nil to keep the input's (as near as the codec holds).
    /// - Throws: `.usage` (64) for a `SampleFormat` the codec or container cannot hold;
    ///   `.notSupported` (69) for a channel count the encoder cannot hold, naming the counts it
    ///   takes and how to keep them all.
    static func plan(
        codec: AudioCodec, container: ContainerFormat, input: Input,
        requested: SampleFormat?, device: String
    ) throws(CaptureError) -> AudioEncoderPlan {
        var plan: AudioEncoderPlan
        switch codec {
        case .aac, .opus: plan = try lossy(codec, input: input, requested: requested)
        case .pcm: plan = try pcm(in: container, input: input, requested: requested)
        case .flac: plan = try flac(in: container, input: input, requested: requested)
        }
        fitRate(&plan, codec: codec, channels: input.channels)
        guard let layout = layout(for: plan, channels: input.channels) else {
            let takes = (1...16).filter { layout(for: plan, channels: $0) != nil }
            let keeping = ContainerFormat.extensions { $0.holdsAudio && CodecChoice.holds($0, AV_CODEC_ID_PCM_S16LE) }
            let most = takes.filter { $0 < input.channels }.max() ?? 1
            throw .notSupported(
                device: device,
                reason:
                    "\(input.channels) channels cannot be recorded as \(codec.rawValue), which takes \(describe(takes)) channels; record \(most) with \(.channels, "\(most)"), or keep all \(input.channels) as PCM in \(keeping)"
            )
        }
        plan.layout = layout
        return plan
    }

    /// AAC or Opus: the encoder's own sample format (16-bit kept where it takes it).
    private static func lossy(_ codec: AudioCodec, input: Input, requested: SampleFormat?) throws(CaptureError)
        -> AudioEncoderPlan
    {
        if let requested {
            throw .usage(
                "\(.sampleFormat, requested.rawValue) applies to \(.audioCodec, "pcm") and flac; \(codec.rawValue) chooses its own"
            )
        }
        let (name, options) = codec == .aac ? ("aac", [:]) : CodecChoice.opusEncoder
        let formats = Encoder.sampleFormats(of: name)
        // 16-bit input stays 16-bit where the encoder takes it (libopus); else its float.
        let sample =
            formats.contains(AV_SAMPLE_FMT_S16) && input.format == .s16
            ? AV_SAMPLE_FMT_S16 : formats.first { $0 == AV_SAMPLE_FMT_FLT } ?? formats.first ?? AV_SAMPLE_FMT_FLTP
        return AudioEncoderPlan(
            encoder: name, options: options, sampleFormat: sample, sampleRate: input.sampleRate,
            layout: .standard(input.channels),
            bitRate: codec == .aac ? (input.channels == 1 ? 96_000 : 64_000 * min(input.channels, 8)) : 0,
            writtenFormat: repairedString(av_get_sample_fmt_name(sample)) ?? "?")
    }

    /// PCM: the format asked for, else the input's own or the nearest the container holds
    /// without losing more.
    private static func pcm(in container: ContainerFormat, input: Input, requested: SampleFormat?)
        throws(CaptureError) -> AudioEncoderPlan
    {
        let held = SampleFormat.allCases.filter { CodecChoice.holds(container, pcm($0).codec) }
        let chosen: SampleFormat
        if let requested {
            guard held.contains(requested) else {
                throw .usage(
                    ".\(container.fileExtension) files cannot hold \(requested.rawValue) PCM; use \(.sampleFormat, held.map(\.rawValue).joined(separator: " or ")), or record to \(containers(holdingPCM: requested))"
                )
            }
            chosen = requested
        } else {
            let order: [SampleFormat] =
                switch input.format {
                case .s16: [.s16]
                case .s24: [.s24, .s32, .flt, .s16]
                case .s32: [.s32, .s24, .flt, .s16]
                case .flt: [.flt, .s32, .s24, .s16]
                }
            chosen = order.first { held.contains($0) } ?? .s16
        }
        let (id, sample, bits) = pcm(chosen)
        return AudioEncoderPlan(
            encoder: repairedString(avcodec_get_name(id)) ?? "pcm_s16le", sampleFormat: sample,
            bitsPerRawSample: bits, sampleRate: input.sampleRate, layout: .standard(input.channels),
            writtenFormat: chosen.rawValue)
    }

    /// FLAC: 16 or 24 bits a sample; FFmpeg 5.1 encodes at most 24, integers only.
    private static func flac(in container: ContainerFormat, input: Input, requested: SampleFormat?)
        throws(CaptureError) -> AudioEncoderPlan
    {
        if let requested, requested == .s32 || requested == .flt {
            // PCM in this container, or the containers that hold PCM of that format.
            let elsewhere =
                CodecChoice.holds(container, pcm(requested).codec) ? "" : " in \(containers(holdingPCM: requested))"
            throw .usage(
                "FLAC holds at most 24-bit integer samples; use \(.sampleFormat, "s24") or s16, or \(.audioCodec, "pcm") for \(requested.rawValue)\(elsewhere)"
            )
        }
        let chosen: SampleFormat = (requested ?? input.format) == .s16 ? .s16 : .s24
        return AudioEncoderPlan(
            encoder: "flac", sampleFormat: chosen == .s16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32,
            bitsPerRawSample: chosen == .s16 ? 0 : 24, sampleRate: input.sampleRate,
            layout: .standard(input.channels), writtenFormat: chosen.rawValue)
    }

    /// Moves `plan`'s rate to one the encoder takes, with a note: the nearest it lists, or, for an
    /// encoder that lists none but opens with no layout at this rate (FLAC above 655350 Hz), the
    /// first common lower rate it opens with.
    private static func fitRate(_ plan: inout AudioEncoderPlan, codec: AudioCodec, channels: Int) {
        let rates = Encoder.sampleRates(of: plan.encoder)
        if !rates.isEmpty && !rates.contains(plan.sampleRate) {
            let rate = plan.sampleRate
            // The nearest rate it takes; on a tie the higher, which loses nothing.
            let nearest = rates.min { a, b in
                abs(a - rate) != abs(b - rate) ? abs(a - rate) < abs(b - rate) : a > b
            }!
            plan.notes.append("\(codec.rawValue) does not take \(rate) Hz; resampling to \(nearest) Hz")
            plan.sampleRate = nearest
        }
        guard
            layout(for: plan, channels: channels) == nil && layout(for: plan, channels: 1) == nil
                && layout(for: plan, channels: 2) == nil
        else { return }
        let rate = plan.sampleRate
        for lower in [384_000, 352_800, 192_000, 176_400, 96_000, 88_200, 48_000, 44_100] where lower < rate {
            plan.sampleRate = lower
            if layout(for: plan, channels: channels) != nil {
                plan.notes.append("\(codec.rawValue) does not take \(rate) Hz; resampling to \(lower) Hz")
                return
            }
            plan.sampleRate = rate
        }
    }

    /// The first of ``ChannelLayout/candidates(_:)`` the encoder opens with, or nil.
    static func layout(for plan: AudioEncoderPlan, channels: Int) -> ChannelLayout? {
        ChannelLayout.candidates(channels).first { layout in
            var settings = Encoder.AudioSettings(
                sampleRate: plan.sampleRate, layout: layout, sampleFormat: plan.sampleFormat, options: plan.options)
            settings.bitsPerRawSample = plan.bitsPerRawSample
            return Encoder.opens(plan.encoder, settings)
        }
    }

    /// `1 to 8`, `1, 2 or 5 to 8`.
    static func describe(_ counts: [Int]) -> String {
        var runs: [ClosedRange<Int>] = []
        for count in counts.sorted() {
            if let last = runs.last, last.upperBound + 1 == count {
                runs[runs.count - 1] = last.lowerBound...count
            } else {
                runs.append(count...count)
            }
        }
        let parts = runs.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound) to \($0.upperBound)" }
        guard parts.count > 1 else { return parts.first ?? "no" }
        return parts.dropLast().joined(separator: ", ") + " or " + parts.last!
    }
}

extension Encoder {
    /// The audio encoder `plan` describes, opened.
    ///
    /// - Parameter globalHeader: codec headers in extradata, as MP4 and Matroska ask.
    /// - Throws: `FFmpegError` from `avcodec_open2`.
    convenience init(audio plan: AudioEncoderPlan, globalHeader: Bool) throws(FFmpegError) {
        var settings = AudioSettings(
            sampleRate: plan.sampleRate, layout: plan.layout, sampleFormat: plan.sampleFormat, bitRate: plan.bitRate,
            options: plan.options)
        settings.bitsPerRawSample = plan.bitsPerRawSample
        try self.init(audio: plan.encoder, settings, globalHeader: globalHeader)
    }
}
