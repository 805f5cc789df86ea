/// How to open a microphone for recording, and what the recorder converts to afterwards.
///
/// The device is always opened with a sample format, rate and channel count it supports
/// natively, so FFmpeg's alsa input never fails with "cannot set sample format" and its
/// rate-near never silently swaps the rate. A request the device cannot meet is converted
/// (libswresample), never refused and never relabelled.
public struct AudioFormatPlan: Hashable, Sendable {
    /// The PCM or source name to open: the device's own name, or for a card whose formats
    /// FFmpeg cannot ask for, its `plughw:` form (which then converts the sample format only).
    public var openName: String
    /// The sample format to open with, in ALSA's names ("S16_LE", "S24_3LE"); for PulseAudio,
    /// the format FFmpeg asks the server for.
    public var sampleFormat: String
    /// The FFmpeg PCM codec that makes libavdevice's alsa (or pulse) input open `sampleFormat`:
    /// set it as the input's audio codec id before `avformat_open_input`.
    public var codec: String
    /// The rate to open with, in Hz (the input's `sample_rate` option).
    public var sampleRate: Int
    /// The channel count to open with (the input's `channels` option).
    public var channels: Int
    /// The rate to record, in Hz: the requested one, else `sampleRate`.
    public var outputSampleRate: Int
    /// The channel count to record: the requested one, else `channels`.
    public var outputChannels: Int

    /// True when libswresample must change the rate.
    public var resamples: Bool { outputSampleRate != sampleRate }
    /// True when libswresample must downmix or upmix.
    public var remixes: Bool { outputChannels != channels }
}

/// Chooses how to open a microphone from its probe (pure logic; the recorder calls it).
public enum AudioFormatChoice {
    /// ALSA sample formats FFmpeg 5.1's alsa input can ask for, each with the PCM codec that
    /// selects it (libavdevice/alsa.c maps the codec id to the ALSA format; note that
    /// pcm_s24le means packed 3-byte S24_3LE there, and nothing selects 4-byte S24_LE),
    /// in our order of preference: 16-bit first (what AAC and most files want, and half the
    /// bytes), then the wider integer and float formats without loss, then the rest.
    public static let ffmpegFormats: [(alsa: String, codec: String)] = [
        ("S16_LE", "pcm_s16le"), ("S32_LE", "pcm_s32le"), ("S24_3LE", "pcm_s24le"), ("FLOAT_LE", "pcm_f32le"),
        ("FLOAT64_LE", "pcm_f64le"), ("S16_BE", "pcm_s16be"), ("S32_BE", "pcm_s32be"), ("S24_3BE", "pcm_s24be"),
        ("FLOAT_BE", "pcm_f32be"), ("FLOAT64_BE", "pcm_f64be"), ("U16_LE", "pcm_u16le"), ("U16_BE", "pcm_u16be"),
        ("U32_LE", "pcm_u32le"), ("U32_BE", "pcm_u32be"), ("U24_3LE", "pcm_u24le"), ("U24_3BE", "pcm_u24be"),
        ("S8", "pcm_s8"), ("U8", "pcm_u8"), ("MU_LAW", "pcm_mulaw"), ("A_LAW", "pcm_alaw"),
    ]

    /// PulseAudio sample formats and the codec FFmpeg's pulse input asks the server for.
    /// The server converts any other format itself, losslessly to float or 32-bit.
    static let pulseFormats: [String: (format: String, codec: String)] = [
        "s16le": ("s16le", "pcm_s16le"), "s16be": ("s16be", "pcm_s16be"), "u8": ("u8", "pcm_u8"),
        "float32le": ("float32le", "pcm_f32le"), "float32be": ("float32be", "pcm_f32be"),
        "s32le": ("s32le", "pcm_s32le"), "s32be": ("s32be", "pcm_s32be"),
        "s24le": ("s32le", "pcm_s32le"), "s24be": ("s32be", "pcm_s32be"),
        "s24-32le": ("s32le", "pcm_s32le"), "s24-32be": ("s32be", "pcm_s32be"),
        "alaw": ("alaw", "pcm_alaw"), "ulaw": ("ulaw", "pcm_mulaw"),
    ]

    /// The rate chosen when none is requested and the device offers it, in Hz.
    public static let preferredRate = 48000
    /// The channel count chosen when none is requested and the device offers it.
    public static let preferredChannels = 2

    /// Chooses the format, rate and channel count to open `probe`'s device with.
    ///
    /// Rate: the requested one if native, else the native standard rate nearest to it (ties go
    /// to the higher); with no request 48000 Hz if native, else the native rate nearest to it.
    /// Channels likewise, preferring 2 on ties. The output keeps the request, or what was
    /// opened when nothing was requested (a mono microphone records mono).
    ///
    /// - Parameters:
    ///   - probe: from `MicrophoneProber.probe`.
    ///   - sampleRate: the requested rate in Hz, or nil.
    ///   - channels: the requested channel count, or nil.
    /// - Throws: `.notSupported` when the device offers no format FFmpeg can read and has no
    ///   plug form, or no rate or channel count at all; `.usage` for a rate or count below 1.
    ///   - sampleFormat: the sample format to record (`SampleFormat`), or nil: a device that
    ///     offers it natively is opened in it (s24 prefers S24_3LE, then S32_LE), so nothing is
    ///     converted; otherwise the usual order applies and the recorder converts.
    public static func choose(
        for probe: MicrophoneProbe, sampleRate: Int? = nil, channels: Int? = nil,
        sampleFormat: SampleFormat? = nil
    )
        throws(CaptureError) -> AudioFormatPlan
    {
        if let sampleRate, sampleRate < 1 { throw .usage("\(.sampleRate) must be at least 1 Hz, not \(sampleRate)") }
        if let channels, channels < 1 { throw .usage("\(.channels) must be at least 1, not \(channels)") }
        let device = probe.device
        if let pulse = probe.pulse {
            var format = pulseFormats[pulse.sampleFormat] ?? ("float32le", "pcm_f32le")
            // The server converts to whatever is asked, losslessly upwards.
            switch sampleFormat {
            case .s16?: format = ("s16le", "pcm_s16le")
            case .s24?, .s32?: format = ("s32le", "pcm_s32le")
            case .flt?: format = ("float32le", "pcm_f32le")
            case nil: break
            }
            return AudioFormatPlan(
                openName: device.name, sampleFormat: format.format, codec: format.codec,
                sampleRate: pulse.sampleRate, channels: pulse.channels,
                outputSampleRate: sampleRate ?? pulse.sampleRate, outputChannels: channels ?? pulse.channels)
        }
        guard let caps = probe.alsa else {
            throw .notSupported(device: device.name, reason: "not an ALSA or PulseAudio microphone")
        }
        var openName = device.name
        var format = preferred(sampleFormat).first { caps.formats.contains($0.alsa) }
        if !caps.access.contains("RW_INTERLEAVED") {
            // FFmpeg reads with snd_pcm_readi: without interleaved read access only a plug PCM helps.
            format = nil
        }
        if format == nil {
            guard let plug = device.alsa?.plugName else {
                throw .notSupported(
                    device: device.name,
                    reason:
                        "offers only \(caps.formats.joined(separator: ", ")) (\(caps.access.joined(separator: ", "))), which FFmpeg cannot read; use its plug form or an ALSA plug PCM over it"
                )
            }
            // The plug form converts the sample format; rate and channels stay native below.
            openName = plug
            format = ffmpegFormats[0]
        }
        guard let format else { throw .notSupported(device: device.name, reason: "no usable sample format") }
        guard let rate = nativeRate(caps, wanted: sampleRate ?? preferredRate) else {
            throw .notSupported(
                device: device.name, reason: "offers no usable sample rate (range \(describe(caps.rates)))")
        }
        guard let count = nativeChannels(caps, wanted: channels ?? preferredChannels) else {
            throw .notSupported(
                device: device.name, reason: "offers no usable channel count (range \(describe(caps.channels)))")
        }
        return AudioFormatPlan(
            openName: openName, sampleFormat: format.alsa, codec: format.codec, sampleRate: rate, channels: count,
            outputSampleRate: sampleRate ?? rate, outputChannels: channels ?? count)
    }

    /// ``ffmpegFormats`` with the ALSA formats that hold `format` as they are moved to the front.
    static func preferred(_ format: SampleFormat?) -> [(alsa: String, codec: String)] {
        let first: [String]
        switch format {
        case .s16?: first = ["S16_LE"]
        case .s24?: first = ["S24_3LE", "S32_LE"]
        case .s32?: first = ["S32_LE"]
        case .flt?: first = ["FLOAT_LE"]
        case nil: return ffmpegFormats
        }
        let front = first.compactMap { name in ffmpegFormats.first { $0.alsa == name } }
        return front + ffmpegFormats.filter { !first.contains($0.alsa) }
    }

    /// `wanted` if the device takes it, else the nearest standard rate it takes (ties to the
    /// higher rate, which loses nothing when resampled down); else the range's end nearest to it.
    static func nativeRate(_ caps: ALSACapabilities, wanted: Int) -> Int? {
        if caps.accepts(rate: wanted) { return wanted }
        if let nearest = caps.standardRates.min(by: { closer($0, $1, to: wanted) }) { return nearest }
        let low = Int(caps.rates.min) + (caps.rates.minOpen ? 1 : 0)
        let high = Int(caps.rates.max) - (caps.rates.maxOpen ? 1 : 0)
        guard low <= high, high >= 1 else { return nil }
        return Swift.min(Swift.max(wanted, low), high)
    }

    /// `wanted` if the device takes it, else the nearest count it takes, preferring 2 on ties
    /// and then the larger count.
    static func nativeChannels(_ caps: ALSACapabilities, wanted: Int) -> Int? {
        if caps.accepts(channels: wanted) { return wanted }
        let counts: [Int]
        if let listed = caps.channelCounts {
            counts = listed
        } else {
            let low = Int(caps.channels.min) + (caps.channels.minOpen ? 1 : 0)
            let high = Int(caps.channels.max) - (caps.channels.maxOpen ? 1 : 0)
            guard low <= high, high >= 1 else { return nil }
            counts = [Swift.max(low, 1), high]
        }
        return counts.filter { $0 >= 1 }.min { a, b in
            let (da, db) = (abs(a - wanted), abs(b - wanted))
            if da != db { return da < db }
            if (a == preferredChannels) != (b == preferredChannels) { return a == preferredChannels }
            return a > b
        }
    }

    private static func closer(_ a: Int, _ b: Int, to target: Int) -> Bool {
        let (da, db) = (abs(a - target), abs(b - target))
        return da != db ? da < db : a > b
    }

    private static func describe(_ range: ALSARange) -> String {
        "\(range.minOpen ? "(" : "[")\(range.min) \(range.max)\(range.maxOpen ? ")" : "]")"
    }
}
