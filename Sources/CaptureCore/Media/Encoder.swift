internal import CFFmpeg

/// Encodes frames into packets (`AVCodecContext` with an encoder): libx264, rawvideo,
/// wrapped_avframe, AAC, Opus, FLAC, PCM.
///
/// Owns its codec context (`avcodec_alloc_context3`, freed with `avcodec_free_context` in deinit).
/// Packets come out in the encoder's `timeBase`; the muxer rescales them to the stream's.
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>
    /// The GPU surfaces a hardware encoder takes its pictures in (VA-API); nil for pictures in
    /// memory.
    private var hardware: HardwareFrames?

    /// What a video encoder is set up with.
    struct VideoSettings {
        var width: Int
        var height: Int
        var pixelFormat: PixelFormat
        var frameRate: Rational
        /// Frames between keyframes.
        var keyframeInterval: Int
        /// Bits per second; 0 leaves rate control to `options` (crf).
        var bitRate: Int = 0
        /// Private options of the encoder (`preset`, `crf`).
        var options: [String: String] = [:]
        /// The range the pictures' values span, written into the stream.
        var colorRange = ColorRange.unspecified
        /// The pictures use the BT.601 matrix (`AVCOL_SPC_SMPTE170M`), as JPEG's do; unspecified
        /// when false.
        var bt601 = false
    }

    /// What an audio encoder is set up with.
    struct AudioSettings {
        var sampleRate: Int
        var layout: ChannelLayout
        var sampleFormat: AVSampleFormat
        var bitRate: Int = 0
        /// Significant bits when fewer than the sample format holds (`bits_per_raw_sample`: 24
        /// makes FLAC write 24-bit samples and marks `pcm_s24le`'s); 0: all of them.
        var bitsPerRawSample: Int = 0
        var options: [String: String] = [:]
    }

    private init(codecName: String) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOSYS), call: "avcodec_find_encoder_by_name(\(codecName))")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avcodec_alloc_context3")
        }
        self.codec = codec
        self.context = context
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&pointer)
    }

    /// A video encoder, opened. Time base: one frame interval, so a frame's pts counts frames.
    ///
    /// - Parameters:
    ///   - globalHeader: put SPS/PPS in extradata, as MP4 and Matroska ask
    ///     (`AV_CODEC_FLAG_GLOBAL_HEADER`).
    ///   - hardware: the GPU surfaces the encoder takes pictures in; `send` uploads each picture
    ///     (of `settings.pixelFormat`, the pool's software format) into one.
    /// - Throws: `FFmpegError` from `avcodec_open2`, with the encoder's own log line.
    convenience init(
        video codecName: String, _ settings: VideoSettings, globalHeader: Bool, hardware: HardwareFrames? = nil
    ) throws(FFmpegError) {
        try self.init(codecName: codecName)
        let c = context
        c.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        c.pointee.width = Int32(settings.width)
        c.pointee.height = Int32(settings.height)
        c.pointee.pix_fmt = settings.pixelFormat.av
        if let hardware {
            self.hardware = hardware
            c.pointee.pix_fmt = hardware.pixelFormat
            c.pointee.hw_frames_ctx = hardware.framesReference()
        }
        c.pointee.framerate = settings.frameRate.av
        c.pointee.time_base = settings.frameRate.inverted.av
        c.pointee.gop_size = Int32(settings.keyframeInterval)
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.color_range = settings.colorRange.av
        c.pointee.colorspace = settings.bt601 ? AVCOL_SPC_SMPTE170M : AVCOL_SPC_UNSPECIFIED
        if settings.bitRate > 0 { c.pointee.bit_rate = Int64(settings.bitRate) }
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(settings.options)
    }

    /// An audio encoder, opened. Time base: one sample (1/sampleRate s).
    convenience init(audio codecName: String, _ settings: AudioSettings, globalHeader: Bool) throws(FFmpegError) {
        try self.init(codecName: codecName)
        let c = context
        c.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        c.pointee.sample_rate = Int32(settings.sampleRate)
        c.pointee.sample_fmt = settings.sampleFormat
        c.pointee.ch_layout = settings.layout.av
        c.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        c.pointee.bits_per_raw_sample = Int32(settings.bitsPerRawSample)
        if settings.bitRate > 0 { c.pointee.bit_rate = Int64(settings.bitRate) }
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(settings.options)
    }

    /// True when the encoder opens with `settings` (a trial `avcodec_open2` on a context of its
    /// own, freed at once): how to learn which channel layouts an encoder takes, since FFmpeg
    /// 5.1's AAC, Opus and FLAC encoders list none and check them only when opened.
    static func opens(_ codecName: String, _ settings: AudioSettings) -> Bool {
        (try? Encoder(audio: codecName, settings, globalHeader: false)) != nil
    }

    private func open(_ options: [String: String]) throws(FFmpegError) {
        let (code, _) = withOptionDictionary(options) { dictionary in
            avcodec_open2(context, codec, &dictionary)
        }
        try check(code, "avcodec_open2(\(name))")
    }

    /// The encoder's name (`AVCodec.name`): `libx264`, `aac`, `libopus`.
    var name: String { repairedString(codec.pointee.name) ?? "?" }
    /// The time base of the encoder's frames and packets.
    var timeBase: AVRational { context.pointee.time_base }
    /// Samples per channel each audio frame must carry; 0 when any count will do.
    var frameSize: Int {
        codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0 ? 0 : Int(context.pointee.frame_size)
    }
    /// Samples per channel a decoder must be fed before the first one it plays when it starts in
    /// the middle of this encoder's output (a later segment): AAC needs the frame before for its
    /// overlap (its priming, `initial_padding`, 1024); Opus 160 ms (7680 at 48 kHz). RFC 7845
    /// asks for at least 80 ms, but after 80 ms FFmpeg's Opus decoder still reads a 1 kHz tone 7
    /// to 10 % low for some milliseconds, and after 160 ms within 2 %. Rounded up to whole
    /// packets of `frameSize`; 0 for video and for codecs whose packets stand alone (PCM, FLAC).
    var decoderPreroll: Int {
        guard context.pointee.codec_type == AVMEDIA_TYPE_AUDIO, frameSize > 0 else { return 0 }
        var samples = Int(context.pointee.initial_padding)
        if context.pointee.codec_id == AV_CODEC_ID_OPUS { samples = max(samples, sampleRate * 160 / 1000) }
        return (samples + frameSize - 1) / frameSize * frameSize
    }
    var sampleFormat: AVSampleFormat { context.pointee.sample_fmt }
    var sampleRate: Int { Int(context.pointee.sample_rate) }
    var channelLayout: AVChannelLayout { context.pointee.ch_layout }
    var channelCount: Int { Int(context.pointee.ch_layout.nb_channels) }
    /// FFmpeg's name of the encoder's sample format (`av_get_sample_fmt_name`).
    var sampleFormatName: String { repairedString(av_get_sample_fmt_name(context.pointee.sample_fmt)) ?? "?" }

    /// Hands a frame to the encoder (`avcodec_send_frame`), uploaded first to the GPU for a
    /// hardware encoder that takes surfaces; nil starts draining.
    func send(_ frame: Frame?) throws(FFmpegError) {
        var frame = frame
        if let hardware, let picture = frame { frame = try hardware.uploaded(picture) }
        let code = avcodec_send_frame(context, frame?.pointer)
        if code == CFFmpeg_AVERROR_EOF && frame == nil { return }
        try check(code, "avcodec_send_frame(\(name))")
    }

    /// Takes the next encoded packet (`avcodec_receive_packet`).
    ///
    /// - Returns: false when the encoder needs more input or is drained (EAGAIN, EOF).
    func receive(into packet: Packet) throws(FFmpegError) -> Bool {
        let code = avcodec_receive_packet(context, packet.pointer)
        if code == CFFmpeg_AVERROR_EAGAIN || code == CFFmpeg_AVERROR_EOF { return false }
        try check(code, "avcodec_receive_packet(\(name))")
        return true
    }

    /// The pixel formats a video encoder takes (`AVCodec.pix_fmts`); empty when it does not say.
    static func pixelFormats(of codecName: String) -> [AVPixelFormat] {
        guard let codec = avcodec_find_encoder_by_name(codecName), var p = codec.pointee.pix_fmts else { return [] }
        var result: [AVPixelFormat] = []
        while p.pointee != AV_PIX_FMT_NONE {
            result.append(p.pointee)
            p += 1
        }
        return result
    }

    /// The sample formats an audio encoder takes (`AVCodec.sample_fmts`); empty when it does not say.
    static func sampleFormats(of codecName: String) -> [AVSampleFormat] {
        guard let codec = avcodec_find_encoder_by_name(codecName), var p = codec.pointee.sample_fmts else { return [] }
        var result: [AVSampleFormat] = []
        while p.pointee != AV_SAMPLE_FMT_NONE {
            result.append(p.pointee)
            p += 1
        }
        return result
    }

    /// The sample rates an audio encoder takes (`AVCodec.supported_samplerates`); empty: any.
    static func sampleRates(of codecName: String) -> [Int] {
        guard let codec = avcodec_find_encoder_by_name(codecName), var p = codec.pointee.supported_samplerates else {
            return []
        }
        var result: [Int] = []
        while p.pointee != 0 {
            result.append(Int(p.pointee))
            p += 1
        }
        return result
    }

    /// True when this build of FFmpeg has an encoder of that name.
    static func exists(_ codecName: String) -> Bool { avcodec_find_encoder_by_name(codecName) != nil }
}

/// The range a picture's YUV values span (`AVColorRange`).
enum ColorRange {
    case unspecified
    /// Limited ("TV", `AVCOL_RANGE_MPEG`): 16-235 for 8-bit luma.
    case limited
    /// Full ("PC", `AVCOL_RANGE_JPEG`): 0-255, as JPEG pictures are.
    case full

    var av: AVColorRange {
        switch self {
        case .unspecified: AVCOL_RANGE_UNSPECIFIED
        case .limited: AVCOL_RANGE_MPEG
        case .full: AVCOL_RANGE_JPEG
        }
    }
}
