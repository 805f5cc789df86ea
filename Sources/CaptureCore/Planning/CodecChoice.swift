internal import CFFmpeg

/// Which FFmpeg codec and encoder stand behind a video or audio codec choice, and whether a
/// container can hold it (`avformat_query_codec`).
enum CodecChoice {
    /// The codec id a video choice writes into `container`; nil for `copy` (the input's).
    static func codecID(_ codec: VideoCodec, in container: ContainerFormat) -> AVCodecID? {
        switch codec {
        case .h264: AV_CODEC_ID_H264
        // The YUV4MPEG muxer takes whole frames wrapped in packets, not raw bytes.
        case .raw: container.muxer == "yuv4mpegpipe" ? AV_CODEC_ID_WRAPPED_AVFRAME : AV_CODEC_ID_RAWVIDEO
        case .copy: nil
        }
    }

    /// The encoder behind a video choice.
    static func encoderName(_ codec: VideoCodec, in container: ContainerFormat) -> String {
        switch codec {
        case .h264: "libx264"
        case .raw: container.muxer == "yuv4mpegpipe" ? "wrapped_avframe" : "rawvideo"
        case .copy: "copy"
        }
    }

    /// The codec id an audio choice writes; PCM stands for its 16-bit form here.
    static func codecID(_ codec: AudioCodec) -> AVCodecID {
        switch codec {
        case .aac: AV_CODEC_ID_AAC
        case .opus: AV_CODEC_ID_OPUS
        case .pcm: AV_CODEC_ID_PCM_S16LE
        case .flac: AV_CODEC_ID_FLAC
        }
    }

    /// The Opus encoder: libopus when this FFmpeg has it, else FFmpeg's own (experimental in 5.1).
    static var opusEncoder: (name: String, options: [String: String]) {
        Encoder.exists("libopus") ? ("libopus", [:]) : ("opus", ["strict": "experimental"])
    }

    /// Checks that `container` can hold the chosen codecs.
    ///
    /// - Throws: `RecordingPlanError` naming the codecs that would work in that container and the
    ///   containers that would hold the codec.
    /// `pixelFormat` is the one asked for, if any: where raw video can go depends on it.
    static func validate(
        video: VideoCodec?, pixelFormat: String? = nil, audio: AudioCodec?,
        in container: ContainerFormat
    ) throws(RecordingPlanError) {
        let ext = container.fileExtension
        if let video {
            guard container.holdsVideo else {
                throw .containerHoldsNoVideo(
                    fileExtension: ext,
                    use: ContainerFormat.extensions { $0.holdsVideo && (audio == nil || $0.holdsAudio) })
            }
            if let id = codecID(video, in: container), !holds(container, id) {
                let working = VideoCodec.allCases.filter { codec in
                    codecID(codec, in: container).map { holds(container, $0) } ?? false
                }
                // Raw pictures go only where their pixel format reads back (NUT for any camera's).
                let others =
                    video == .raw
                    ? RawPictureFormats.extensions(holding: pixelFormat, withAudio: audio != nil)
                    : ContainerFormat.extensions { other in
                        other.holdsVideo && (audio == nil || other.holdsAudio)
                            && (codecID(video, in: other).map { holds(other, $0) } ?? false)
                    }
                throw .videoCodecNotInContainer(
                    video, fileExtension: ext, working: working.map(\.rawValue), others: others)
            }
        }
        if let audio {
            guard container.holdsAudio else {
                throw .containerHoldsNoAudio(
                    fileExtension: ext, use: ContainerFormat.extensions { $0.holdsAudio && $0.holdsVideo })
            }
            if !holds(container, codecID(audio)) {
                let working = AudioCodec.allCases.filter { holds(container, codecID($0)) }
                // With video, an audio-only container is no way out.
                let others = ContainerFormat.extensions {
                    $0.holdsAudio && (video == nil || $0.holdsVideo) && holds($0, codecID(audio))
                }
                throw .audioCodecNotInContainer(
                    audio, fileExtension: ext, working: working.map(\.rawValue), others: others)
            }
        }
    }

    /// What would work when `container` cannot hold a copy of a source's `codec` packets (an FFmpeg
    /// codec name, `mjpeg`): the choices it holds instead, and the extensions that hold the packets.
    static func copyAlternatives(codec name: String, in container: ContainerFormat) -> (
        working: [String], others: String
    ) {
        let working = VideoCodec.allCases.filter { codec in
            codecID(codec, in: container).map { holds(container, $0) } ?? false
        }
        guard let descriptor = avcodec_descriptor_get_by_name(name) else { return (working.map(\.rawValue), "") }
        let id = descriptor.pointee.id
        return (working.map(\.rawValue), ContainerFormat.extensions { $0.holdsVideo && holds($0, id) })
    }

    /// True when the muxer says it holds `codec`, or it is one of the muxer's own defaults, and
    /// writing it there works in FFmpeg 5.1.
    static func holds(_ container: ContainerFormat, _ codec: AVCodecID) -> Bool {
        if refusedAtWrite[container.muxer]?.contains(codec.rawValue) == true { return false }
        return OutputContainer.canHold(formatName: container.muxer, codec: codec) == true
    }

    /// Codecs `avformat_query_codec` says a muxer holds but that FFmpeg 5.1 then refuses or
    /// botches: the mov muxer takes FLAC and Opus in MP4 only; the mp4 muxer takes FLAC only at
    /// experimental strictness; the AVI muxer gets FLAC packets whose timestamps it rejects.
    /// The WAV muxer writes AAC that FFmpeg's own decoder then rejects. Suggesting them would send
    /// the user to an error at the first write, or to a file that does not play.
    private static let refusedAtWrite: [String: Set<AVCodecID.RawValue>] = [
        "mov": [AV_CODEC_ID_FLAC.rawValue, AV_CODEC_ID_OPUS.rawValue],
        "mp4": [AV_CODEC_ID_FLAC.rawValue],
        "avi": [AV_CODEC_ID_FLAC.rawValue],
        "wav": [AV_CODEC_ID_AAC.rawValue],
    ]
}
