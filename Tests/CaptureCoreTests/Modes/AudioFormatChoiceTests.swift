import Testing

@testable import CaptureCore

@Suite struct AudioFormatChoiceTests {
    static let allRates = ALSACapabilities.testedRates

    /// A probe as a card device (with a plug form) or a configuration PCM (without) reports it.
    static func probe(
        formats: [String], channels: ClosedRange<UInt32>, counts: [Int]? = nil, rates: [Int],
        rateRange: ClosedRange<UInt32>? = nil, continuous: Bool = false,
        access: [String] = ["MMAP_INTERLEAVED", "RW_INTERLEAVED"],
        card: Bool = true
    ) -> MicrophoneProbe {
        let range = ALSARange(min: 1, max: 1_000_000)
        let caps = ALSACapabilities(
            pcmType: card ? "HW" : "PLUG", access: access, formats: formats,
            channels: ALSARange(min: channels.lowerBound, max: channels.upperBound),
            channelCounts: counts ?? (channels.count <= 64 ? channels.map { Int($0) } : nil),
            rates: rateRange.map { ALSARange(min: $0.lowerBound, max: $0.upperBound) }
                ?? ALSARange(min: UInt32(rates.min() ?? 0), max: UInt32(rates.max() ?? 0)),
            standardRates: rates, continuousRates: continuous, periodFrames: range, periodMicroseconds: range,
            bufferFrames: range,
            bufferMicroseconds: range, periods: range)
        let device = Device(
            name: card ? "hw:CARD=Mic,DEV=0" : "mic", kind: .audio, api: .alsa, role: "microphone",
            description: "a microphone",
            alsa: card ? ALSADetails(cardIndex: 1, cardID: "Mic", device: 0, plugName: "plughw:CARD=Mic,DEV=0") : nil)
        return MicrophoneProbe(device: device, alsa: caps)
    }

    /// snd-dummy in ac97 mode: S16_LE, stereo, 48 kHz only (case C04).
    static let ac97 = probe(formats: ["S16_LE"], channels: 2...2, rates: [48000])

    @Test func nativeEverythingIsOpenedAsIs() throws {
        let plan = try AudioFormatChoice.choose(for: Self.ac97)
        #expect(plan.openName == "hw:CARD=Mic,DEV=0")
        #expect(plan.sampleFormat == "S16_LE" && plan.codec == "pcm_s16le")
        #expect(plan.sampleRate == 48000 && plan.channels == 2)
        #expect(plan.outputSampleRate == 48000 && plan.outputChannels == 2)
        #expect(!plan.resamples && !plan.remixes)
    }

    @Test func monoRequestOnAStereoOnlyDeviceIsDownmixedNotRefused() throws {
        let plan = try AudioFormatChoice.choose(for: Self.ac97, channels: 1)
        #expect(plan.channels == 2 && plan.outputChannels == 1 && plan.remixes)
    }

    @Test func aRateTheDeviceLacksIsResampledNotRelabelled() throws {
        let plan = try AudioFormatChoice.choose(for: Self.ac97, sampleRate: 44100)
        #expect(plan.sampleRate == 48000 && plan.outputSampleRate == 44100 && plan.resamples)
    }

    /// A PCM that offers only packed 24-bit mono (case C05): opened as S24_3LE through
    /// pcm_s24le, which is what FFmpeg's alsa input maps to S24_3LE, and recorded mono.
    @Test func packed24BitMonoOnly() throws {
        let c05 = Self.probe(
            formats: ["S24_3LE"], channels: 1...1, rates: Self.allRates, rateRange: 8000...192000, card: false)
        let plan = try AudioFormatChoice.choose(for: c05)
        #expect(plan.openName == "mic")
        #expect(plan.sampleFormat == "S24_3LE" && plan.codec == "pcm_s24le")
        #expect(plan.sampleRate == 48000 && plan.channels == 1 && plan.outputChannels == 1)
        let stereo = try AudioFormatChoice.choose(for: c05, sampleRate: 44100, channels: 2)
        #expect(stereo.sampleRate == 44100 && stereo.channels == 1 && stereo.outputChannels == 2)
    }

    @Test func sixteenBitIsPreferredWhenOffered() throws {
        let loopback = Self.probe(
            formats: ["S16_LE", "S16_BE", "S24_LE", "S32_LE", "FLOAT_LE"], channels: 1...32, rates: Self.allRates,
            rateRange: 8000...192000)
        let plan = try AudioFormatChoice.choose(for: loopback)
        #expect(plan.sampleFormat == "S16_LE" && plan.sampleRate == 48000 && plan.channels == 2)
        let six = try AudioFormatChoice.choose(for: loopback, sampleRate: 96000, channels: 6)
        #expect(six.sampleRate == 96000 && six.channels == 6 && !six.resamples && !six.remixes)
    }

    @Test(arguments: [
        (["S32_LE", "S24_LE"], "S32_LE", "pcm_s32le"),
        (["S24_LE", "S24_3LE"], "S24_3LE", "pcm_s24le"),
        (["FLOAT_LE"], "FLOAT_LE", "pcm_f32le"),
        (["U8"], "U8", "pcm_u8"),
    ])
    func formatPreference(formats: [String], alsa: String, codec: String) throws {
        let plan = try AudioFormatChoice.choose(for: Self.probe(formats: formats, channels: 2...2, rates: [48000]))
        #expect(plan.sampleFormat == alsa && plan.codec == codec)
        #expect(plan.openName == "hw:CARD=Mic,DEV=0")
    }

    /// FFmpeg cannot ask for 4-byte S24_LE: a card that offers nothing else is opened through its
    /// plughw form, which then converts only the sample format (rate and channels stay native).
    @Test func formatsFFmpegCannotReadGoThroughThePlugForm() throws {
        let plan = try AudioFormatChoice.choose(for: Self.probe(formats: ["S24_LE"], channels: 2...2, rates: [44100]))
        #expect(plan.openName == "plughw:CARD=Mic,DEV=0")
        #expect(plan.sampleFormat == "S16_LE" && plan.sampleRate == 44100 && plan.channels == 2)
        let mmapOnly = Self.probe(formats: ["S16_LE"], channels: 2...2, rates: [48000], access: ["MMAP_INTERLEAVED"])
        #expect(try AudioFormatChoice.choose(for: mmapOnly).openName == "plughw:CARD=Mic,DEV=0")
    }

    @Test func aConfigurationPCMWithoutAReadableFormatIsNotSupported() {
        let probe = Self.probe(formats: ["S24_LE"], channels: 2...2, rates: [48000], card: false)
        #expect(throws: CaptureError.self) { try AudioFormatChoice.choose(for: probe) }
        do {
            _ = try AudioFormatChoice.choose(for: probe)
        } catch {
            #expect(error.exitCode == 69)
            #expect(error.description.contains("S24_LE"))
        }
    }

    @Test(arguments: [
        ([44100], nil as Int?, 44100),  // no request, 48000 missing: the nearest native rate
        ([44100], 48000, 44100),
        ([8000, 16000], 11025, 8000),  // 3025 Hz away beats 4975
        ([32000, 64000], 48000, 64000),  // a tie goes to the higher rate
        ([16000, 48000], 22050, 16000),
        ([44100, 48000, 96000], 96000, 96000),
    ])
    func rateChoice(rates: [Int], requested: Int?, opened: Int) throws {
        let plan = try AudioFormatChoice.choose(
            for: Self.probe(formats: ["S16_LE"], channels: 2...2, rates: rates), sampleRate: requested)
        #expect(plan.sampleRate == opened)
        #expect(plan.outputSampleRate == (requested ?? opened))
    }

    @Test func nonStandardRatesCountOnlyInContinuousRanges() throws {
        let continuous = Self.probe(
            formats: ["S16_LE"], channels: 2...2, rates: Self.allRates, rateRange: 4000...200000, continuous: true)
        #expect(try AudioFormatChoice.choose(for: continuous, sampleRate: 22000).sampleRate == 22000)
        let discrete = Self.probe(
            formats: ["S16_LE"], channels: 2...2, rates: [44100, 48000], rateRange: 44100...48000)
        // 46000 lies inside 44100...48000, but the device takes only the two rates: the nearer one.
        #expect(try AudioFormatChoice.choose(for: discrete, sampleRate: 46000).sampleRate == 44100)
        #expect(try AudioFormatChoice.choose(for: discrete, sampleRate: 47000).sampleRate == 48000)
    }

    @Test(arguments: [
        ([1], nil as Int?, 1),  // a mono microphone records mono by default
        ([4, 5, 6], nil, 4),
        ([4, 5, 6], 1, 4),
        ([1, 2, 4], 3, 2),  // a tie prefers stereo
        ([1, 3], 2, 3),  // otherwise the larger count
        ([2, 4, 6, 8], 8, 8),
    ])
    func channelChoice(counts: [Int], requested: Int?, opened: Int) throws {
        let lowest = UInt32(counts.min()!)
        let highest = UInt32(counts.max()!)
        let probe = Self.probe(formats: ["S16_LE"], channels: lowest...highest, counts: counts, rates: [48000])
        let plan = try AudioFormatChoice.choose(for: probe, channels: requested)
        #expect(plan.channels == opened)
        #expect(plan.outputChannels == (requested ?? opened))
    }

    @Test func wideChannelRangesAreNotListedButStillChosenFrom() throws {
        let null = Self.probe(
            formats: ["S16_LE"], channels: 1...1_073_741_823, counts: nil, rates: Self.allRates,
            rateRange: 1...4_000_000_000, continuous: true)
        #expect(null.alsa?.channelCounts == nil)
        let plan = try AudioFormatChoice.choose(for: null, channels: 7)
        #expect(plan.channels == 7 && plan.sampleRate == 48000)
    }

    @Test func pulseSourcesOpenWithTheirOwnSpec() throws {
        let device = Device(name: "pulse:tone", kind: .audio, api: .pulse, role: "microphone", description: "Sine")
        let source = PulseSourceCapabilities(
            source: "tone", description: "Sine", sampleFormat: "float32le", sampleRate: 44100, channels: 1,
            channelMap: ["mono"], monitor: false, monitorOf: nil, isDefault: true, driver: nil)
        let plan = try AudioFormatChoice.choose(
            for: MicrophoneProbe(device: device, pulse: source), sampleRate: 48000, channels: 2)
        #expect(plan.openName == "pulse:tone" && plan.codec == "pcm_f32le")
        #expect(plan.sampleRate == 44100 && plan.channels == 1)
        #expect(plan.outputSampleRate == 48000 && plan.outputChannels == 2)
    }

    @Test func nonsenseRequestsAreUsageErrors() {
        #expect(throws: CaptureError.self) { try AudioFormatChoice.choose(for: Self.ac97, sampleRate: 0) }
        #expect(throws: CaptureError.self) { try AudioFormatChoice.choose(for: Self.ac97, channels: -1) }
    }
}
