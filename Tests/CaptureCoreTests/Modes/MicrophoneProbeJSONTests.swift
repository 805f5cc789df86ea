import Foundation
import Testing

@testable import CaptureCore

/// The `capture probe --json` schema for microphones: the keys scripts rely on.
@Suite struct MicrophoneProbeJSONTests {
    static func encode(_ probe: MicrophoneProbe) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let data = try encoder.encode(probe)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func alsaKeys() throws {
        let range = ALSARange(min: 1, max: 2, minOpen: true)
        let caps = ALSACapabilities(
            pcmType: "HW", access: ["RW_INTERLEAVED"], formats: ["S16_LE"], channels: range, channelCounts: [2],
            rates: range, standardRates: [48000], continuousRates: false, periodFrames: range,
            periodMicroseconds: range, bufferFrames: range, bufferMicroseconds: range, periods: range)
        let device = Device(
            name: "hw:CARD=Dummy,DEV=0", kind: .audio, api: .alsa, role: "microphone", description: "Dummy")
        let object = try Self.encode(MicrophoneProbe(device: device, alsa: caps))
        #expect(Set(object.keys) == ["device", "alsa"])
        let alsa = try #require(object["alsa"] as? [String: Any])
        #expect(
            Set(alsa.keys) == [
                "pcm_type", "access", "formats", "channels", "channel_counts", "rates", "standard_rates",
                "continuous_rates", "period_frames", "period_microseconds", "buffer_frames", "buffer_microseconds",
                "periods",
            ])
        let channels = try #require(alsa["channels"] as? [String: Any])
        #expect(Set(channels.keys) == ["min", "max", "min_open", "max_open"])
        #expect(channels["min_open"] as? Bool == true && channels["max_open"] as? Bool == false)
    }

    @Test func pulseKeys() throws {
        let device = Device(name: "pulse:tone", kind: .audio, api: .pulse, role: "microphone", description: "Sine")
        let source = PulseSourceCapabilities(
            source: "tone", description: "Sine", sampleFormat: "float32le", sampleRate: 44100, channels: 1,
            channelMap: ["mono"], monitor: false, monitorOf: "sink", isDefault: true, driver: "module-sine-source.c")
        let object = try Self.encode(MicrophoneProbe(device: device, pulse: source))
        #expect(Set(object.keys) == ["device", "pulse"])
        let pulse = try #require(object["pulse"] as? [String: Any])
        #expect(
            Set(pulse.keys) == [
                "source", "description", "sample_format", "sample_rate", "channels", "channel_map", "monitor",
                "monitor_of", "is_default", "driver",
            ])
    }

    @Test(arguments: [
        (ALSARange(min: 1, max: 8), 8, true), (ALSARange(min: 1, max: 8, maxOpen: true), 8, false),
        (ALSARange(min: 0, max: 8, minOpen: true), 0, false), (ALSARange(min: 0, max: 8, minOpen: true), 1, true),
        (ALSARange(min: 1, max: 8), -1, false),
    ])
    func rangeContainsHonoursOpenEnds(range: ALSARange, value: Int, inside: Bool) {
        #expect(range.contains(value) == inside)
    }
}
