/// What a microphone can do, as `capture probe` reports it. Found without recording.
///
/// JSON (snake_case keys): `{"device": {...as in capture list...}, "alsa": {...}}` for an ALSA
/// PCM, `{"device": {...}, "pulse": {...}}` for a PulseAudio source.
public struct MicrophoneProbe: Codable, Hashable, Sendable {
    /// The device, as `capture list` shows it.
    public var device: Device
    /// The hardware parameter space of an ALSA PCM; nil for PulseAudio sources.
    public var alsa: ALSACapabilities?
    /// The sample spec of a PulseAudio source; nil for ALSA PCMs.
    public var pulse: PulseSourceCapabilities?

    public init(device: Device, alsa: ALSACapabilities? = nil, pulse: PulseSourceCapabilities? = nil) {
        self.device = device
        self.alsa = alsa
        self.pulse = pulse
    }
}

/// An interval of ALSA's hardware parameter space. Either end may be open: ALSA keeps such
/// ends for values derived from others (a period time of "(20 ...]" is above 20 µs, not 20).
public struct ALSARange: Codable, Hashable, Sendable {
    public var min: UInt32
    public var max: UInt32
    /// True when `min` itself is excluded.
    public var minOpen: Bool
    /// True when `max` itself is excluded.
    public var maxOpen: Bool

    public init(min: UInt32, max: UInt32, minOpen: Bool = false, maxOpen: Bool = false) {
        self.min = min
        self.max = max
        self.minOpen = minOpen
        self.maxOpen = maxOpen
    }

    /// True when an integer value lies inside, honouring open ends.
    public func contains(_ value: Int) -> Bool {
        guard value >= 0, let value = UInt32(exactly: value) else { return false }
        return (minOpen ? value > min : value >= min) && (maxOpen ? value < max : value <= max)
    }
}

/// Everything an ALSA capture PCM accepts before any parameter is chosen: what
/// `snd_pcm_hw_params_any` leaves open, tested with the `snd_pcm_hw_params_test_*` calls.
public struct ALSACapabilities: Codable, Hashable, Sendable {
    /// The PCM's plugin type as libasound names it (`snd_pcm_type_name`): "HW", "PLUG", "NULL",
    /// "DSNOOP", "EXTPLUG", "IOPLUG" ...
    public var pcmType: String
    /// Access modes (`snd_pcm_access_name`): "RW_INTERLEAVED", "MMAP_INTERLEAVED" ...
    public var access: [String]
    /// Every sample format the PCM accepts, in ALSA's names ("S16_LE", "S24_3LE", "FLOAT_LE"),
    /// in ALSA's enumeration order.
    public var formats: [String]
    /// Channel counts, as a range.
    public var channels: ALSARange
    /// Each accepted channel count, when the range is small enough to list (at most 64 values);
    /// nil for PCMs that take almost any count (a null or plug PCM).
    public var channelCounts: [Int]?
    /// Sample rates in Hz, as a range.
    public var rates: ALSARange
    /// Which of the standard rates (8000 ... 192000 Hz) the PCM accepts.
    public var standardRates: [Int]
    /// True when the PCM takes any integer rate inside `rates` (a rate converter, a loopback),
    /// not only a list of rates as most hardware does.
    public var continuousRates: Bool
    /// Period size in frames.
    public var periodFrames: ALSARange
    /// Period time in microseconds.
    public var periodMicroseconds: ALSARange
    /// Buffer size in frames.
    public var bufferFrames: ALSARange
    /// Buffer time in microseconds.
    public var bufferMicroseconds: ALSARange
    /// Periods per buffer.
    public var periods: ALSARange

    /// The rates tested for `standardRates`, in Hz.
    public static let testedRates = [
        8000, 11025, 16000, 22050, 32000, 44100, 48000, 64000, 88200, 96000, 176400, 192000,
    ]

    public init(
        pcmType: String, access: [String], formats: [String], channels: ALSARange, channelCounts: [Int]?,
        rates: ALSARange, standardRates: [Int], continuousRates: Bool, periodFrames: ALSARange,
        periodMicroseconds: ALSARange,
        bufferFrames: ALSARange, bufferMicroseconds: ALSARange, periods: ALSARange
    ) {
        self.pcmType = pcmType
        self.access = access
        self.formats = formats
        self.channels = channels
        self.channelCounts = channelCounts
        self.rates = rates
        self.standardRates = standardRates
        self.continuousRates = continuousRates
        self.periodFrames = periodFrames
        self.periodMicroseconds = periodMicroseconds
        self.bufferFrames = bufferFrames
        self.bufferMicroseconds = bufferMicroseconds
        self.periods = periods
    }

    /// True when the PCM takes `count` channels.
    public func accepts(channels count: Int) -> Bool {
        channelCounts.map { $0.contains(count) } ?? channels.contains(count)
    }

    /// True when the PCM takes `rate` Hz: a tested standard rate it accepted, or any rate
    /// inside a continuous range.
    public func accepts(rate: Int) -> Bool {
        if Self.testedRates.contains(rate) { return standardRates.contains(rate) }
        return continuousRates && rates.contains(rate)
    }
}

/// A PulseAudio source's native sample spec (`pa_source_info`). The server converts to any
/// spec a client asks for, so this is what the source delivers without conversion.
public struct PulseSourceCapabilities: Codable, Hashable, Sendable {
    /// The server's source name.
    public var source: String
    public var description: String
    /// Sample format in PulseAudio's names ("s16le", "float32le", "s24le", "s32le" ...).
    public var sampleFormat: String
    /// Sample rate in Hz.
    public var sampleRate: Int
    public var channels: Int
    /// Channel positions ("front-left", "front-right", "mono" ...), one per channel.
    public var channelMap: [String]
    /// True for the monitor of a sink (what it plays), not a microphone.
    public var monitor: Bool
    /// The sink this source monitors.
    public var monitorOf: String?
    /// The server's default source.
    public var isDefault: Bool
    /// The server module that made the source ("module-alsa-card.c", "module-null-sink.c" ...).
    public var driver: String?

    public init(
        source: String, description: String, sampleFormat: String, sampleRate: Int, channels: Int,
        channelMap: [String], monitor: Bool, monitorOf: String?, isDefault: Bool, driver: String?
    ) {
        self.source = source
        self.description = description
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
        self.channelMap = channelMap
        self.monitor = monitor
        self.monitorOf = monitorOf
        self.isDefault = isDefault
        self.driver = driver
    }
}
