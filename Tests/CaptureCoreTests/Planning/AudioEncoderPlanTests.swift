import Testing

@testable import CaptureCore

/// The audio encoder plan: what each codec and container write for a microphone's format, rate
/// and channel count, decided from FFmpeg's own encoders (issue 11).
@Suite struct AudioEncoderPlanTests {
    static func container(_ ext: String) throws -> ContainerFormat { try ContainerFormat.forPath("x.\(ext)") }

    static func plan(
        _ codec: AudioCodec, _ ext: String, _ format: SampleFormat,
        rate: Int = 48000, channels: Int = 2, requested: SampleFormat? = nil
    ) throws -> AudioEncoderPlan {
        try AudioEncoderPlanner.plan(
            codec: codec, container: container(ext),
            input: .init(format: format, sampleRate: rate, channels: channels), requested: requested, device: "mic")
    }

    @Test(arguments: [
        ("pcm_s16le", SampleFormat.s16), ("pcm_s24le", .s24), ("pcm_s32le", .s32),
        ("pcm_f32le", .flt), ("pcm_f64le", .flt), ("pcm_u8", .s16), ("pcm_s24be", .s24), ("s32p", .s32),
    ])
    func inputFormatsAreClassified(codec: String, format: SampleFormat) {
        #expect(AudioEncoderPlanner.format(ofCodec: codec) == format)
    }

    @Test(arguments: [
        (SampleFormat.s16, "pcm_s16le"), (.s24, "pcm_s24le"), (.s32, "pcm_s32le"), (.flt, "pcm_f32le"),
    ])
    func pcmKeepsTheMicrophonesFormat(format: SampleFormat, encoder: String) throws {
        for ext in ["wav", "mkv", "nut", "mov"] {
            let plan = try Self.plan(.pcm, ext, format)
            #expect(plan.encoder == encoder, "\(ext)")
            #expect(plan.writtenFormat == format.rawValue, "\(ext)")
            #expect(plan.bitsPerRawSample == (format == .s24 ? 24 : 0))
        }
    }

    @Test func sampleFormatOptionChoosesAnother() throws {
        #expect(try Self.plan(.pcm, "wav", .s16, requested: .s32).encoder == "pcm_s32le")
        #expect(try Self.plan(.pcm, "wav", .s32, requested: .s16).encoder == "pcm_s16le")
        #expect(try Self.plan(.pcm, "mkv", .s32, requested: .s24).encoder == "pcm_s24le")
        #expect(try Self.plan(.flac, "flac", .s16, requested: .s24).writtenFormat == "s24")
    }

    @Test func flacKeepsUpTo24Bits() throws {
        #expect(try Self.plan(.flac, "flac", .s16).writtenFormat == "s16")
        for format in [SampleFormat.s24, .s32, .flt] {
            let plan = try Self.plan(.flac, "flac", format)
            #expect(plan.writtenFormat == "s24")
            #expect(plan.bitsPerRawSample == 24)
        }
        for format in [SampleFormat.s32, .flt] {
            #expect(throws: CaptureError.self) { try Self.plan(.flac, "flac", .s32, requested: format) }
        }
    }

    @Test func lossyCodecsRefuseASampleFormat() {
        #expect(throws: CaptureError.self) { try Self.plan(.aac, "m4a", .s32, requested: .s32) }
        #expect(throws: CaptureError.self) { try Self.plan(.opus, "opus", .s16, requested: .s16) }
    }

    @Test func namedChannelCountsGetTheirLayouts() throws {
        let names = [1: "mono", 2: "stereo", 4: "4.0", 6: "5.1", 8: "7.1"]
        for (count, name) in names {
            #expect(try Self.plan(.pcm, "wav", .s16, channels: count).layout.name == name)
            #expect(try Self.plan(.aac, "m4a", .s16, channels: count).layout.name == name)
        }
        // Opus's multichannel mapping has its own layouts: 3.0 and quad, not 2.1 and 4.0.
        #expect(try Self.plan(.opus, "opus", .s16, channels: 3).layout.name == "3.0")
        #expect(try Self.plan(.opus, "opus", .s16, channels: 4).layout.name == "quad")
        let ten = try Self.plan(.pcm, "mkv", .s16, channels: 10).layout
        #expect(ten.channels == 10)
        #expect(ten.mask == nil)
    }

    @Test func channelCountsTheEncoderCannotHoldAreRefusedWithTheWayOut() throws {
        for (codec, ext) in [(AudioCodec.aac, "m4a"), (.opus, "opus"), (.flac, "flac")] {
            do {
                _ = try Self.plan(codec, ext, .s16, channels: 10)
                Issue.record("\(codec) took 10 channels")
            } catch {
                #expect((error as? CaptureError)?.exitCode == 69)
                // The library names the option; a front end spells it (here: <option value>).
                let text =
                    (error as? CaptureError)?.description { "<\($0.rawValue)\($1.map { " " + $0 } ?? "")>" } ?? ""
                #expect(text.contains("10 channels"), "\(text)")
                #expect(text.contains("<channels 8>"), "\(text)")
                #expect(text.contains("1 to 8"), "\(text)")
                #expect(text.contains(".wav"), "\(text)")
            }
        }
    }

    @Test func ratesTheEncoderRefusesAreResampledAndSaidOnce() throws {
        let opus = try Self.plan(.opus, "opus", .s16, rate: 44100)
        #expect(opus.sampleRate == 48000)
        #expect(opus.notes.count == 1)
        #expect(opus.notes.first?.contains("44100") == true)
        let aac = try Self.plan(.aac, "m4a", .flt, rate: 192_000)
        #expect(aac.sampleRate == 96000)
        #expect(aac.notes.count == 1)
        #expect(try Self.plan(.aac, "m4a", .s16, rate: 44100).notes.isEmpty)
        #expect(try Self.plan(.pcm, "wav", .s16, rate: 44100).sampleRate == 44100)
    }
}
