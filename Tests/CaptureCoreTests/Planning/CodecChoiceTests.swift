import Glibc
import Testing

@testable import CaptureCore

@Suite struct CodecChoiceTests {
    @Test(arguments: [
        ("mp4", VideoCodec?.some(.h264), AudioCodec?.some(.aac), true),
        ("mp4", .h264, .opus, true),
        ("mp4", .raw, nil, false),
        ("mp4", .h264, .pcm, false),
        ("mkv", .raw, .pcm, true),
        ("mkv", .h264, .flac, true),
        // avformat_query_codec says yes to these, FFmpeg 5.1's muxers then refuse them.
        ("mp4", .h264, .flac, false),
        ("mov", .h264, .flac, false),
        ("mov", .h264, .opus, false),
        ("avi", .raw, .flac, false),
        // WAV takes AAC at the header, and FFmpeg's decoder cannot read it back.
        ("wav", nil, .aac, false),
        ("wav", nil, .flac, true),
        ("y4m", .raw, nil, true),
        ("y4m", .h264, nil, false),
        ("h264", .h264, nil, true),
        ("wav", nil, .pcm, true),
        ("wav", .h264, .pcm, false),
        ("flac", nil, .aac, false),
        ("opus", nil, .opus, true),
        ("m4a", nil, .aac, true),
        ("m4a", .h264, .aac, false),
    ])
    func containerHoldsCodec(
        ext: String, video: VideoCodec?, audio: AudioCodec?, ok: Bool
    ) throws {
        let container = try ContainerFormat.forPath("x.\(ext)")
        var accepted = true
        do { try CodecChoice.validate(video: video, audio: audio, in: container) } catch { accepted = false }
        #expect(accepted == ok)
    }

    @Test func muxerOptionsKeepAKilledFileReadable() throws {
        let mp4 = RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.mp4"))
        #expect(mp4["movflags"]?.contains("frag_keyframe") == true)
        #expect(mp4["movflags"]?.contains("empty_moov") == true)
        #expect(mp4["frag_duration"] == "500000")
        #expect(RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.mkv"))["cluster_time_limit"] == "500")
        #expect(RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.nut"))["flush_packets"] == "1")
    }

    /// WAV past 4 GiB needs RF64's 64-bit sizes, which FFmpeg's wav muxer writes only when asked.
    @Test func wavAsksForRF64WhenItGrowsPastFourGiB() throws {
        #expect(RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.wav"))["rf64"] == "auto")
        for ext in ["mkv", "nut", "avi", "flac", "mp4"] {
            #expect(RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.\(ext)"))["rf64"] == nil)
        }
    }
}
