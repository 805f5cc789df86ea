/// An output container, chosen by the output file's extension, with the codecs it gets by default.
public struct ContainerFormat: Hashable, Sendable {
    /// The extension without the dot, lower case: `mp4`.
    public let fileExtension: String
    /// FFmpeg's muxer name: `mp4`, `matroska`, `yuv4mpegpipe`.
    public let muxer: String
    /// The video codec when none is asked for; nil for audio-only containers.
    public let defaultVideoCodec: VideoCodec?
    /// The audio codec when none is asked for; nil for video-only containers.
    public let defaultAudioCodec: AudioCodec?

    public var holdsVideo: Bool { defaultVideoCodec != nil }
    public var holdsAudio: Bool { defaultAudioCodec != nil }

    /// Every container `record` writes, in the order help lists them.
    public static let all: [ContainerFormat] = [
        .init(fileExtension: "mp4", muxer: "mp4", defaultVideoCodec: .h264, defaultAudioCodec: .aac),
        .init(fileExtension: "mov", muxer: "mov", defaultVideoCodec: .h264, defaultAudioCodec: .aac),
        .init(fileExtension: "mkv", muxer: "matroska", defaultVideoCodec: .h264, defaultAudioCodec: .pcm),
        .init(fileExtension: "nut", muxer: "nut", defaultVideoCodec: .raw, defaultAudioCodec: .pcm),
        .init(fileExtension: "avi", muxer: "avi", defaultVideoCodec: .raw, defaultAudioCodec: .pcm),
        .init(fileExtension: "ts", muxer: "mpegts", defaultVideoCodec: .h264, defaultAudioCodec: .aac),
        .init(fileExtension: "y4m", muxer: "yuv4mpegpipe", defaultVideoCodec: .raw, defaultAudioCodec: nil),
        .init(fileExtension: "h264", muxer: "h264", defaultVideoCodec: .h264, defaultAudioCodec: nil),
        .init(fileExtension: "wav", muxer: "wav", defaultVideoCodec: nil, defaultAudioCodec: .pcm),
        .init(fileExtension: "flac", muxer: "flac", defaultVideoCodec: nil, defaultAudioCodec: .flac),
        .init(fileExtension: "m4a", muxer: "ipod", defaultVideoCodec: nil, defaultAudioCodec: .aac),
        .init(fileExtension: "opus", muxer: "opus", defaultVideoCodec: nil, defaultAudioCodec: .opus),
        // An HLS playlist, its MPEG-TS segments written beside it (`PlaylistOutput`).
        .init(fileExtension: "m3u8", muxer: "hls", defaultVideoCodec: .h264, defaultAudioCodec: .aac),
    ]

    /// The container for `path`'s extension (case does not matter).
    ///
    /// - Throws: `CaptureError.usage` naming the extensions that work.
    public static func forPath(_ path: String) throws(CaptureError) -> ContainerFormat {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            throw .usage("'\(path)' has no file extension to choose the container from; use one of \(extensionList)")
        }
        let ext = name[name.index(after: dot)...].lowercased()
        guard let format = all.first(where: { $0.fileExtension == ext }) else {
            throw .usage("'\(path)': unknown output extension '.\(ext)'; use one of \(extensionList)")
        }
        return format
    }

    /// `.mp4, .mov, .mkv, ...`
    public static var extensionList: String { all.map { "." + $0.fileExtension }.joined(separator: ", ") }

    /// Which of `all` hold video (or audio), as `.mp4, .mkv` for messages.
    static func extensions(where predicate: (ContainerFormat) -> Bool) -> String {
        all.filter(predicate).map { "." + $0.fileExtension }.joined(separator: ", ")
    }
}
