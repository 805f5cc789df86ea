import Foundation
import Testing

/// `capture record` from a PulseAudio source of a real server started for the test: a 440 Hz
/// sine source, recorded through FFmpeg's pulse input and read back with ffprobe.
@Suite struct RecordPulseTests {
    @Test func sineSourceIsRecorded() throws {
        let server = try MicrophonePulseTests.TestServer()
        defer { server.stop() }
        let scratch = try RecordScratch()
        let file = scratch.path("pulse.wav")
        let result = try BuiltBinary.run(
            ["record", "--audio", "pulse:capture_test_tone", "--duration", "1.5", "--json", file],
            environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        let audio = try #require(probe.audio)
        #expect(audio.codec.hasPrefix("pcm_"))
        // What the server says the source delivers is what the file holds.
        let spec =
            try server.pactl(["list", "short", "sources"]).stdout.split(separator: "\n")
            .first { $0.contains("capture_test_tone") }.map(String.init) ?? ""
        #expect(spec.contains("\(audio.sampleRate ?? 0)Hz"), "\(spec)")
        #expect(spec.contains("\(audio.channels ?? 0)ch"), "\(spec)")
        #expect(abs((probe.duration ?? 0) - 1.5) <= 0.15)
        // A tone, not silence: the mean level of a full-scale-ish sine is far above -60 dB.
        let level = try RecordOracle.runTool(
            "ffmpeg", ["-nostdin", "-i", file, "-af", "volumedetect", "-f", "null", "-"])
        let mean = level.stderr.split(separator: "\n").first { $0.contains("mean_volume:") }
            .flatMap { Double($0.split(separator: " ").dropLast().last ?? "") }
        #expect((mean ?? -100) > -60, "mean volume \(mean ?? -100) dB")
    }
}
