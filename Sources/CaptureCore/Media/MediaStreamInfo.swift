internal import CFFmpeg

/// What one stream of a source produces, as the source's demuxer reports it after opening.
///
/// JSON (snake_case keys) is part of the `capture probe` JSON for `test` and `lavfi:` sources.
public struct MediaStreamInfo: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable { case video, audio, other }

    public var kind: Kind
    /// FFmpeg's codec name (`rawvideo`, `pcm_s16le`, `mjpeg`, `h264`).
    public var codec: String
    /// Video: FFmpeg's pixel format name (`yuv420p`, `yuyv422`).
    public var pixelFormat: String?
    /// Video: frame width and height in pixels.
    public var width: Int?
    public var height: Int?
    /// Video: frames per second, when the source declares a rate.
    public var frameRate: Rational?
    /// Audio: FFmpeg's sample format name (`s16`, `flt`).
    public var sampleFormat: String?
    /// Audio: samples per second per channel.
    public var sampleRate: Int?
    /// Audio: channel count.
    public var channels: Int?
    /// The stream's time base in seconds, in which its packet timestamps count.
    public var timeBase: Rational

    public init(
        kind: Kind, codec: String, pixelFormat: String? = nil, width: Int? = nil, height: Int? = nil,
        frameRate: Rational? = nil, sampleFormat: String? = nil, sampleRate: Int? = nil,
        channels: Int? = nil, timeBase: Rational
    ) {
        self.kind = kind
        self.codec = codec
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
        self.timeBase = timeBase
    }

    /// "rawvideo yuv420p 640x480 30 fps" or "pcm_s16le s16 48000 Hz 1 channel".
    public var summary: String {
        switch kind {
        case .video:
            var parts = [codec]
            if let pixelFormat { parts.append(pixelFormat) }
            if let width, let height { parts.append("\(width)x\(height)") }
            if let frameRate { parts.append("\(frameRate.decimalDescription) fps") }
            return parts.joined(separator: " ")
        case .audio:
            var parts = [codec]
            if let sampleFormat { parts.append(sampleFormat) }
            if let sampleRate { parts.append("\(sampleRate) Hz") }
            if let channels { parts.append(channels == 1 ? "1 channel" : "\(channels) channels") }
            return parts.joined(separator: " ")
        case .other:
            return codec
        }
    }
}

extension MediaStreamInfo {
    /// True when every frame of the codec decodes on its own (raw video, MJPEG), as
    /// `AV_CODEC_PROP_INTRA_ONLY` of its descriptor says; false for inter-frame codecs such as H.264,
    /// which decode only from a keyframe on. An unknown codec counts as intra-only.
    var isIntraOnly: Bool {
        guard let descriptor = avcodec_descriptor_get_by_name(codec) else { return true }
        return descriptor.pointee.props & AV_CODEC_PROP_INTRA_ONLY != 0
    }
}
