import Glibc

/// A microphone's level over a stretch of its samples, channel by channel, in dBFS (decibels
/// relative to full scale: 0 is the loudest a sample can be, a sine at half scale peaks at
/// -6.02 and has an RMS of -9.03).
///
/// In `capture record --json`'s `audio_level` events and the progress line. Measured from the
/// decoded samples before they are converted or encoded.
public struct AudioLevel: Codable, Hashable, Sendable {
    /// One channel's level.
    public struct Channel: Codable, Hashable, Sendable {
        /// The largest sample's magnitude, dBFS; nil when every sample was zero (digital silence,
        /// minus infinity).
        public var peak: Double?
        /// The root mean square, dBFS; nil when every sample was zero.
        public var rms: Double?
        /// Samples at full scale or past it: the format's extreme values, or a floating-point
        /// sample of magnitude 1 or more.
        public var clipped: Int

        public init(peak: Double?, rms: Double?, clipped: Int) {
            self.peak = peak
            self.rms = rms
            self.clipped = clipped
        }

        private enum CodingKeys: String, CodingKey { case peak, rms, clipped }

        /// Silence is written as `null`, not left out: every channel has the same keys.
        public func encode(to encoder: any Swift.Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(peak, forKey: .peak)
            try container.encode(rms, forKey: .rms)
            try container.encode(clipped, forKey: .clipped)
        }
    }

    /// The channels in the device's order.
    public var channels: [Channel]

    public init(channels: [Channel]) { self.channels = channels }

    /// The loudest channel's peak, dBFS; nil when every channel is silent or there are none.
    public var peak: Double? { channels.compactMap(\.peak).max() }

    /// Samples clipped in all channels.
    public var clipped: Int { channels.reduce(0) { $0 + $1.clipped } }

    /// `linear` (full scale 1) in dBFS to the hundredth; nil for 0.
    public static func decibels(_ linear: Double) -> Double? {
        guard linear > 0 else { return nil }
        // Full scale is 0, not -0.
        return (20 * log10(linear) * 100).rounded() / 100 + 0
    }
}

/// A microphone's levels over a whole recording, for its summary.
public struct LevelSummary: Codable, Hashable, Sendable {
    /// The loudest sample of any channel, dBFS; nil when all was digital silence.
    public var peak: Double?
    /// The root mean square over the recording, of the loudest channel, dBFS; nil for silence.
    public var rms: Double?
    /// Samples clipped, all channels.
    public var clipped: Int
    /// Seconds of digital silence: stretches of a tenth of a second whose every sample is below
    /// -90 dBFS.
    public var secondsSilent: Double

    private enum CodingKeys: String, CodingKey { case peak, rms, clipped, secondsSilent }

    /// Silence is written as `null`, not left out.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peak, forKey: .peak)
        try container.encode(rms, forKey: .rms)
        try container.encode(clipped, forKey: .clipped)
        try container.encode(secondsSilent, forKey: .secondsSilent)
    }

    public init(peak: Double?, rms: Double?, clipped: Int, secondsSilent: Double) {
        self.peak = peak
        self.rms = rms
        self.clipped = clipped
        self.secondsSilent = secondsSilent
    }
}
