import Foundation
import Testing

/// The header of a recorded WAV file, byte by byte: with the wav muxer's `rf64=auto` a file under
/// 4 GiB is plain RIFF, with a 28-byte `JUNK` chunk after `WAVE` that the muxer turns into RF64's
/// `ds64` (64-bit sizes) when the file grows past 4 GiB. Without the option `fmt ` comes right
/// after `WAVE` and a long recording's sizes wrap at 4 GiB.
@Suite struct RecordWAVHeaderTests {
    /// Checks the layout FFmpeg 5.1's wavenc.c writes with `rf64=auto` for a file under 4 GiB.
    static func expectRIFFWithRoomForDS64(_ path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count > 56, "\(path): \(bytes.count) bytes")
        func text(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        func uint32(_ at: Int) -> Int { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | Int($1) } }
        #expect(text(0) == "RIFF", "\(path)")
        #expect(uint32(4) == bytes.count - 8, "\(path): the RIFF size is the file's, less its first 8 bytes")
        #expect(text(8) == "WAVE", "\(path)")
        #expect(text(12) == "JUNK", "\(path): no room kept for ds64; was rf64=auto passed?")
        #expect(uint32(16) == 28, "\(path)")
        #expect(bytes[20..<48].allSatisfy { $0 == 0 }, "\(path)")
        #expect(text(48) == "fmt ", "\(path)")
    }

    @Test func aShortRecordingIsPlainRIFFWithRoomForDS64() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("sound.wav")
        let result = try BuiltBinary.run([
            "record", "--audio", RecordSources.audio, "--channels", "2", "--duration", "0.5", "--quiet", file,
        ])
        try #require(result.status == 0, "\(result.stderr)")
        try Self.expectRIFFWithRoomForDS64(file)
        // ffprobe reads the file past the JUNK chunk, to its length.
        let probe = try RecordOracle.probe(file)
        #expect(probe.audio?.codec == "pcm_s16le" && probe.audio?.channels == 2)
        #expect(abs((probe.duration ?? 0) - 0.5) <= 0.02)
        #expect(try RecordOracle.decodesCleanly(file))
    }

    /// A series of WAV files opens each one with the same options.
    @Test func everySegmentIsPlainRIFFWithRoomForDS64() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--audio", RecordSources.audio, "--duration", "2", "--segment-time", "1", "--quiet",
            scratch.path("voice.wav"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        for number in 1...2 { try Self.expectRIFFWithRoomForDS64(scratch.path("voice-000\(number).wav")) }
    }
}
