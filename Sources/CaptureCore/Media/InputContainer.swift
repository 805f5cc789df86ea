internal import CFFmpeg
internal import CShim
import FoundationEssentials
import Glibc

/// An opened source: a device through libavdevice (`v4l2`, `alsa`, `pulse`, `lavfi`) or a file.
///
/// Owns its `AVFormatContext` (`avformat_open_input`, closed with `avformat_close_input` in
/// deinit). One thread at a time: it is opened on one thread and may then be handed whole to a
/// reader thread, which is why it is `@unchecked Sendable`.
final class InputContainer: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The URL or device name it was opened with, for messages.
    let url: String
    /// Holds the interrupt flag alive as long as FFmpeg may call back into it.
    private let interrupt: InterruptFlag?

    /// Opens `url` with the demuxer or input device `format` (nil: probe the file).
    ///
    /// - Parameters:
    ///   - url: a device name (`/dev/video0`, `hw:1,0`), a lavfi graph, or a file path.
    ///   - format: the input format name (`av_find_input_format`), such as `lavfi` or `v4l2`.
    ///   - options: demuxer options (`video_size`, `framerate`, `channels` ...).
    ///   - audioCodec: the PCM codec an audio device is to deliver (`AVFormatContext.audio_codec_id`),
    ///     which is how FFmpeg's alsa and pulse inputs choose the sample format to open with.
    ///   - interrupt: once raised, blocking reads return `AVERROR_EXIT`.
    /// - Returns: the opened container; `unusedOptions` lists options the demuxer ignored.
    /// - Throws: `FFmpegError` from `avformat_open_input`.
    init(
        url: String, format: String?, options: [String: String] = [:], audioCodec: String? = nil,
        interrupt: InterruptFlag? = nil
    ) throws(FFmpegError) {
        var inputFormat: UnsafePointer<AVInputFormat>?
        if let format {
            // Device inputs are found by name only once libavdevice, loaded on first use, has
            // registered them; a failure to load it is logged and shows below as ENOSYS.
            CShim_avdevice_register_all()
            inputFormat = av_find_input_format(format)
            if inputFormat == nil {
                throw FFmpegError(CFFmpeg_AVERROR(ENOSYS), call: "av_find_input_format(\(format))")
            }
        }
        guard let allocated = avformat_alloc_context() else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_alloc_context")
        }
        if let interrupt { allocated.pointee.interrupt_callback = interrupt.callback }
        if let audioCodec {
            guard let codec = avcodec_find_decoder_by_name(audioCodec) else {
                avformat_free_context(allocated)
                throw FFmpegError(CFFmpeg_AVERROR(ENOSYS), call: "avcodec_find_decoder_by_name(\(audioCodec))")
            }
            allocated.pointee.audio_codec_id = codec.pointee.id
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        // On failure avformat_open_input frees the context and sets it to NULL.
        let (code, unused) = withOptionDictionary(options) { dictionary in
            avformat_open_input(&context, url, inputFormat, &dictionary)
        }
        guard code >= 0, let context else { throw FFmpegError(code, call: "avformat_open_input") }
        self.context = context
        self.url = url
        self.interrupt = interrupt
        self.unusedOptions = unused
        let demuxer = repairedString(context.pointee.iformat.pointee.name) ?? ""
        lendsDeviceBuffers = demuxer.split(separator: ",").contains("v4l2")
        camera = nil
    }

    /// A camera read by capture's own V4L2 reader (`V4L2Stream`), described as FFmpeg's v4l2
    /// input describes its one stream: rawvideo of the format's pixel format (or the camera's
    /// codec), the camera's size and rate, a time base of microseconds. The context has no
    /// demuxer; `read` takes its packets from `camera`.
    ///
    /// Wraps `avformat_alloc_context` and `avformat_new_stream`.
    /// - Throws: `FFmpegError` (ENOMEM, or ENOSYS for a format FFmpeg does not know).
    init(camera: V4L2Stream, interrupt: InterruptFlag?) throws(FFmpegError) {
        guard let allocated = avformat_alloc_context() else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_alloc_context")
        }
        guard let stream = avformat_new_stream(allocated, nil) else {
            avformat_free_context(allocated)
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_new_stream")
        }
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        if camera.entry.compressed {
            parameters.pointee.codec_id =
                avcodec_find_decoder_by_name(camera.entry.name)?.pointee.id ?? AV_CODEC_ID_NONE
        } else {
            parameters.pointee.codec_id = AV_CODEC_ID_RAWVIDEO
            parameters.pointee.format = av_get_pix_fmt(camera.entry.name).rawValue
        }
        guard parameters.pointee.codec_id != AV_CODEC_ID_NONE else {
            avformat_free_context(allocated)
            throw FFmpegError(CFFmpeg_AVERROR(ENOSYS), call: "avcodec_find_decoder_by_name(\(camera.entry.name))")
        }
        parameters.pointee.width = Int32(camera.request.width)
        parameters.pointee.height = Int32(camera.request.height)
        stream.pointee.time_base = AVRational(num: 1, den: 1_000_000)
        // An HDMI input's rate is its signal's (the request leaves it to the input).
        if let rate = camera.request.frameRate ?? camera.signal?.frameRate {
            stream.pointee.avg_frame_rate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
            stream.pointee.r_frame_rate = stream.pointee.avg_frame_rate
        }
        self.context = allocated
        self.url = camera.request.path
        self.interrupt = interrupt
        self.unusedOptions = []
        self.lendsDeviceBuffers = false
        self.camera = camera
    }

    /// The camera read by capture's own V4L2 reader; nil for an input opened through FFmpeg.
    private let camera: V4L2Stream?
    /// What keeps the device open as long as it lives: the own reader's stream, which every packet
    /// lent from its buffers holds (`V4L2Stream.lend`); the container itself otherwise.
    var deviceOwner: AnyObject { camera ?? self }

    /// True for a camera read by capture's own V4L2 reader whose driver numbers its buffers
    /// (`V4L2Stream.numbersBuffers`): its packets say the frames lost before them.
    var numbersBuffers: Bool { camera?.numbersBuffers ?? false }

    /// What the camera's source did that ended the read (`V4L2Stream.sourceChange`): another
    /// mode, or its signal lost; nil otherwise.
    var sourceChange: SourceChange? { camera?.sourceChange }

    /// The signal on the camera's input when it started streaming, for an HDMI grabber read by
    /// capture's own reader; nil otherwise.
    var signal: SignalTimings? { camera?.signal }

    /// True when packets point into the device's own buffers (FFmpeg's v4l2 input maps them), so
    /// each packet must keep the input open (`DeviceBufferLease`).
    private let lendsDeviceBuffers: Bool

    /// Options given to `init` that the demuxer did not take.
    let unusedOptions: [String]

    deinit {
        guard camera == nil else { return avformat_free_context(context) }
        var pointer: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&pointer)
    }

    /// Reads packets to fill in stream parameters a demuxer leaves open, such as a lavfi graph's
    /// frame rate (`avformat_find_stream_info`). The packets read stay queued for `read`.
    func findStreamInfo() throws(FFmpegError) {
        // Without a demuxer there is nothing to read ahead: the stream is described in full.
        guard camera == nil else { return }
        try check(avformat_find_stream_info(context, nil), "avformat_find_stream_info")
    }

    /// Number of streams (`nb_streams`).
    var streamCount: Int { Int(context.pointee.nb_streams) }

    /// The stream at `index` (`AVFormatContext.streams[index]`).
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// The value of `key` in stream `index`'s metadata (`av_dict_get`), or nil.
    func metadata(_ key: String, stream index: Int) -> String? {
        av_dict_get(stream(index).pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
    }

    /// The index of the first stream of `kind`, or nil.
    func firstStream(of kind: MediaStreamInfo.Kind) -> Int? {
        (0..<streamCount).first { info(of: $0).kind == kind }
    }

    /// What stream `index` carries, from its `AVCodecParameters`.
    func info(of index: Int) -> MediaStreamInfo {
        let stream = stream(index)
        let parameters = stream.pointee.codecpar.pointee
        let codec = repairedString(avcodec_get_name(parameters.codec_id)) ?? "unknown"
        let timeBase = Rational(stream.pointee.time_base)
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO:
            let rate = Self.frameRate(of: stream)
            return MediaStreamInfo(
                kind: .video, codec: codec,
                pixelFormat: repairedString(av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format))),
                width: Int(parameters.width), height: Int(parameters.height), frameRate: rate,
                timeBase: timeBase)
        case AVMEDIA_TYPE_AUDIO:
            return MediaStreamInfo(
                kind: .audio, codec: codec,
                sampleFormat: repairedString(av_get_sample_fmt_name(AVSampleFormat(rawValue: parameters.format))),
                sampleRate: Int(parameters.sample_rate), channels: Int(parameters.ch_layout.nb_channels),
                timeBase: timeBase)
        default:
            return MediaStreamInfo(kind: .other, codec: codec, timeBase: timeBase)
        }
    }

    /// The bytes of one sample frame (all channels) and the sample rate of a PCM audio stream
    /// (`av_get_bits_per_sample`); nil for anything else.
    func pcmLayout(of index: Int) -> (frameBytes: Int, sampleRate: Int)? {
        let parameters = stream(index).pointee.codecpar.pointee
        guard parameters.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
        let bits = av_get_bits_per_sample(parameters.codec_id)
        guard bits > 0, parameters.sample_rate > 0 else { return nil }
        return (Int(bits) / 8 * Int(parameters.ch_layout.nb_channels), Int(parameters.sample_rate))
    }

    /// The packet size of a raw video stream whose packets are exactly what the rawvideo encoder
    /// would write for the same size and pixel format (planes packed without padding), or nil.
    ///
    /// The rawvideo decoder reinterprets a few inputs (palettes, a codec tag naming another
    /// layout, bits per sample); those go through it.
    func rawPassThroughSize(of index: Int) -> Int? {
        let parameters = stream(index).pointee.codecpar.pointee
        let format = AVPixelFormat(rawValue: parameters.format)
        guard parameters.codec_id == AV_CODEC_ID_RAWVIDEO, format != AV_PIX_FMT_NONE,
            let descriptor = av_pix_fmt_desc_get(format),
            descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM)
                == 0,
            parameters.codec_tag == 0 || parameters.codec_tag == avcodec_pix_fmt_to_codec_tag(format)
        else { return nil }
        let size = av_image_get_buffer_size(format, parameters.width, parameters.height, 1)
        return size > 0 ? Int(size) : nil
    }

    /// True when the muxer `formatName` can store stream `index`'s packets as they are.
    func canCopy(stream index: Int, into formatName: String) -> Bool {
        OutputContainer.canHold(formatName: formatName, codec: stream(index).pointee.codecpar.pointee.codec_id) == true
    }

    /// The declared frame rate: `avg_frame_rate`, else `r_frame_rate`; nil when neither is set.
    private static func frameRate(of stream: UnsafeMutablePointer<AVStream>) -> Rational? {
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            return Rational(rate).reduced
        }
        return nil
    }

    /// Reads the next packet into `packet` (`av_read_frame`), which is unreferenced first. A packet
    /// that points into a device's buffer keeps this input open until it is freed.
    ///
    /// - Returns: false at the end of the input (`AVERROR_EOF`).
    /// - Throws: `FFmpegError`; `AVERROR_EXIT` once the interrupt flag is raised.
    func read(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        if let camera { return try camera.read(into: packet, interrupt: interrupt) }
        while true {
            let code = av_read_frame(context, packet.pointer)
            if code >= 0 {
                if lendsDeviceBuffers { try DeviceBufferLease.attach(to: packet, owner: self) }
                return true
            }
            let error = FFmpegError(code, call: "av_read_frame")
            if error.isEndOfFile { return false }
            // A non-blocking device has nothing yet; the interrupt flag still ends the wait.
            if error.isAgain && interrupt?.isRaised != true {
                usleep(2_000)
                continue
            }
            throw error
        }
    }

    /// The container's duration in seconds (`AVFormatContext.duration`), when known.
    var duration: Double? {
        let value = context.pointee.duration
        return value == CFFmpeg_AV_NOPTS_VALUE || value < 0 ? nil : Double(value) / Double(CFFmpeg_AV_TIME_BASE)
    }
}
