import Glibc
import Testing

@testable import CaptureCore

@Suite struct ContainerFormatTests {
    @Test(arguments: [
        ("a.mp4", "mp4", VideoCodec?.some(.h264), AudioCodec?.some(.aac)),
        ("dir.v1/B.MKV", "matroska", .h264, .pcm),
        ("x.nut", "nut", .raw, .pcm),
        ("x.avi", "avi", .raw, .pcm),
        ("x.y4m", "yuv4mpegpipe", .raw, nil),
        ("x.h264", "h264", .h264, nil),
        ("x.wav", "wav", nil, .pcm),
        ("x.flac", "flac", nil, .flac),
        ("x.m4a", "ipod", nil, .aac),
        ("x.opus", "opus", nil, .opus),
        ("x.mov", "mov", .h264, .aac),
    ])
    func extensionChoosesMuxerAndDefaults(
        path: String, muxer: String, video: VideoCodec?, audio: AudioCodec?
    ) throws {
        let format = try ContainerFormat.forPath(path)
        #expect(format.muxer == muxer)
        #expect(format.defaultVideoCodec == video)
        #expect(format.defaultAudioCodec == audio)
    }

    @Test(arguments: ["noextension", "x.txt", "dir.mp4/file", ".mp4"])
    func unknownOrMissingExtensionIsAUsageError(path: String) {
        #expect {
            try ContainerFormat.forPath(path)
        } throws: { error in
            guard case CaptureError.usage(let message) = error else { return false }
            return message.description.contains(".mp4, .mov, .mkv")
        }
    }
}
