internal import CFFmpeg
import FoundationEssentials
import Glibc

/// A file being written by a muxer (`AVFormatContext` from `avformat_alloc_output_context2`).
///
/// The order follows FFmpeg's doc/examples/mux.c: add streams from opened encoders, open the file,
/// write the header, write packets rescaled from codec to stream time base, write the trailer.
/// Nothing exists on disk before `writeHeader`; where the file is written and how it comes to its
/// name is `OutputFile`'s business. `finish` writes the trailer exactly once and only after the
/// header; deinit closes what is left.
final class OutputContainer {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The muxer's name (`mp4`, `matroska`, `nut`, ...).
    let formatName: String
    private var encoderTimeBases: [AVRational] = []
    private(set) var headerWritten = false
    private var finished = false
    /// Bytes written, as the I/O layer counts them.
    private(set) var bytesWritten: Int64 = 0
    /// Where a stream's packets lie: the presentation time of its first packet in decode order
    /// and the end of its last one (pts plus duration), microseconds on the encoder's clock.
    struct Span: Sendable {
        var start: Int64
        var end: Int64
    }
    /// Per stream, its packets' span so far. A fragmented MP4 moves every track to start near 0
    /// whatever its first packet said, and keeps no duration for a track's last packet, so
    /// `FastStartRewrite` puts both back from these.
    private(set) var spans: [Int: Span] = [:]

    /// Prepares the muxer `formatName`; `name` is the file's name for the muxer's own use (none
    /// opens it yet).
    init(name: String, formatName: String) throws(FFmpegError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, formatName, name), "avformat_alloc_output_context2")
        guard let context else { throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_alloc_output_context2") }
        self.context = context
        self.formatName = formatName
    }

    deinit {
        if headerWritten && !finished { try? finish() }
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// True when the muxer wants codec headers in extradata (`AVFMT_GLOBALHEADER`), so encoders
    /// must be opened with `AV_CODEC_FLAG_GLOBAL_HEADER`.
    /// True when the container stores no timestamps, so a reader takes each frame as the next
    /// slot: a muxer that says so (`AVFMT_NOTIMESTAMPS`: a raw H.264 stream), or YUV4MPEG, whose
    /// muxer does not declare the flag although its frames carry only their pictures.
    var storesNoTimestamps: Bool {
        context.pointee.oformat.pointee.flags & AVFMT_NOTIMESTAMPS != 0 || formatName == "yuv4mpegpipe"
    }

    var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Whether the muxer can store `codec` (`avformat_query_codec`): true, false, or nil when
    /// the muxer does not say.
    static func canHold(formatName: String, codec: AVCodecID) -> Bool? {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        let answer = avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL)
        if answer == 1 { return true }
        if answer == 0 { return false }
        if let known = heldWithoutTable[formatName] { return known.contains(codec.rawValue) }
        // No table: the muxer's own default codecs are the ones it is known to hold.
        let defaults = [format.pointee.video_codec, format.pointee.audio_codec]
        return defaults.contains(codec) ? true : nil
    }

    /// Muxers without a codec table for `avformat_query_codec`, with the codecs they take in
    /// FFmpeg 5.1 (MPEG-TS: the stream types its muxer writes).
    private static let heldWithoutTable: [String: Set<AVCodecID.RawValue>] = [
        "mpegts": Set(
            [
                AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_AAC,
                AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3, AV_CODEC_ID_OPUS,
            ].map(\.rawValue))
    ]

    /// Adds a stream fed by `encoder` (`avformat_new_stream`, `avcodec_parameters_from_context`).
    ///
    /// - Returns: the stream's index, which `write` takes.
    /// - Parameter priming: for a file that starts in the middle of the encoder's output (a later
    ///   segment), the samples per channel written before its first one for the decoder to start
    ///   on (`Encoder.decoderPreroll`), which players skip (`AVCodecParameters.initial_padding`,
    ///   and Opus's pre-skip); nil keeps the encoder's own priming.
    func addStream(encoder: Encoder, priming: Int? = nil) throws(FFmpegError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_new_stream")
        }
        try check(
            avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "avcodec_parameters_from_context"
        )
        if let priming {
            let parameters = stream.pointee.codecpar!
            parameters.pointee.initial_padding = Int32(priming)
            // Opus says its priming in its own header (OpusHead's pre-skip, bytes 10-11, little
            // endian, counted at 48 kHz whatever the rate), which Ogg, Matroska and MP4 readers follow.
            let rate = Int(parameters.pointee.sample_rate)
            if parameters.pointee.codec_id == AV_CODEC_ID_OPUS, parameters.pointee.extradata_size >= 19, rate > 0,
                let header = parameters.pointee.extradata
            {
                let preSkip = priming * 48000 / rate
                header[10] = UInt8(truncatingIfNeeded: preSkip)
                header[11] = UInt8(truncatingIfNeeded: preSkip >> 8)
            }
        }
        stream.pointee.time_base = encoder.timeBase
        if encoder.context.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            stream.pointee.avg_frame_rate = encoder.context.pointee.framerate
        }
        encoderTimeBases.append(encoder.timeBase)
        return Int(stream.pointee.index)
    }

    /// Names stream `index` in the container's metadata (`av_dict_set` on the stream's metadata):
    /// players and ffprobe show it, so several tracks of one kind can be told apart. MP4 and MOV
    /// keep a track's name as its handler's (`handler_name`), which their muxer writes where the
    /// others write `title`. Call before the header is written.
    func setTitle(_ title: String, stream index: Int) {
        guard index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index] else {
            return
        }
        let key = ["mp4", "mov", "ipod"].contains(formatName) ? "handler_name" : "title"
        av_dict_set(&stream.pointee.metadata, key, title, 0)
    }

    /// Adds a stream whose packets are copied from an input stream as they are (`VideoCodec.copy`).
    ///
    /// - Parameter timeBase: the stream's time base, in which `write` takes the packets' times.
    func addStream(copying input: InputContainer, stream index: Int, timeBase: Rational) throws(FFmpegError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_new_stream")
        }
        let source = input.stream(index).pointee.codecpar!
        try check(avcodec_parameters_copy(stream.pointee.codecpar, source), "avcodec_parameters_copy")
        stream.pointee.codecpar.pointee.codec_tag = copiedCodecTag(source.pointee)
        stream.pointee.time_base = timeBase.av
        encoderTimeBases.append(timeBase.av)
        return Int(stream.pointee.index)
    }

    /// The codec tag a copied stream is written with.
    ///
    /// Raw video is told apart by its tag alone in several containers (NUT falls back to 15-bit RGB
    /// without one), so it gets the tag of its pixel format, as the rawvideo encoder gives it
    /// (`avcodec_pix_fmt_to_codec_tag`), when the input says the format. Anything else keeps the
    /// input's tag where this muxer reads it as the same codec or has no tag of its own for it
    /// (`av_codec_get_id`, `av_codec_get_tag2`); otherwise 0 lets the muxer choose.
    private func copiedCodecTag(_ source: AVCodecParameters) -> UInt32 {
        // A demuxer that names the format by its tag alone (MOV's yuvs, 2vuy) leaves `format`
        // unset: that tag is then all there is to keep, and without it MOV writes `raw `, which
        // readers take for RGB.
        if source.codec_id == AV_CODEC_ID_RAWVIDEO, source.format != AV_PIX_FMT_NONE.rawValue {
            return avcodec_pix_fmt_to_codec_tag(AVPixelFormat(rawValue: source.format))
        }
        guard source.codec_tag != 0, let tables = context.pointee.oformat.pointee.codec_tag else {
            return source.codec_tag
        }
        var own: UInt32 = 0
        if av_codec_get_id(tables, source.codec_tag) == source.codec_id
            || av_codec_get_tag2(tables, source.codec_id, &own) == 0
        {
            return source.codec_tag
        }
        return 0
    }

    /// Opens `url` for writing and writes the header (`avio_open`, `avformat_write_header`). A
    /// muxer that opens its own files (`AVFMT_NOFILE`: HLS's playlist and segments) gets only
    /// the header call, with `url` as the context's name.
    ///
    /// - Parameter options: muxer options, e.g. `movflags` for fragmented MP4.
    /// - Throws: `FFmpegError` from `avio_open` (cannot create) or the muxer; what was opened is
    ///   closed again then (removing a file it created is the caller's).
    func writeHeader(to url: String, options: [String: String]) throws(FFmpegError) {
        precondition(!headerWritten)
        // The muxer names the file by the context's URL when it reopens it (MP4's faststart).
        av_freep(&context.pointee.url)
        context.pointee.url = av_strdup(url)
        if !opensOwnFiles { try check(avio_open(&context.pointee.pb, url, AVIO_FLAG_WRITE), "avio_open") }
        let (code, _) = withOptionDictionary(options) { dictionary in
            avformat_write_header(context, &dictionary)
        }
        if code < 0 {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            throw FFmpegError(code, call: "avformat_write_header")
        }
        if let pb = context.pointee.pb { avio_flush(pb) }
        headerWritten = true
    }

    /// True for a muxer that opens and names its files itself (`AVFMT_NOFILE`).
    var opensOwnFiles: Bool { context.pointee.oformat.pointee.flags & AVFMT_NOFILE != 0 }

    /// Closes the file without a trailer after a start that failed past the header (the file
    /// could not be moved to its name); the container counts as never started.
    func abandon() {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        headerWritten = false
    }

    /// The time base the muxer chose for stream `index` (valid after `writeHeader`).
    func timeBase(of index: Int) -> AVRational { context.pointee.streams[index]!.pointee.time_base }

    /// The number of streams added.
    var streamCount: Int { encoderTimeBases.count }

    /// True when stream `index` is video.
    func isVideo(_ index: Int) -> Bool {
        context.pointee.streams[index]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
    }

    /// `ticks` of stream `index`'s packets (the encoder's time base, in which `write` takes them)
    /// in microseconds.
    func microseconds(ofTicks ticks: Int64, stream index: Int) -> Int64 {
        Rescale.rescale(ticks, from: Rational(encoderTimeBases[index]), to: Rescale.microsecond)
    }

    /// `microseconds` in ticks of stream `index`'s packets, rounded to the nearest.
    func ticks(ofMicroseconds microseconds: Int64, stream index: Int) -> Int64 {
        Rescale.rescale(microseconds, from: Rescale.microsecond, to: Rational(encoderTimeBases[index]))
    }

    /// Writes an encoded packet to stream `index`, rescaling its timestamps from the encoder's time
    /// base to the stream's (`av_packet_rescale_ts`, `av_interleaved_write_frame`). Takes the
    /// packet's payload.
    func write(_ packet: Packet, stream index: Int) throws(FFmpegError) {
        packet.streamIndex = index
        if let pts = packet.pts ?? packet.dts {
            let end = microseconds(ofTicks: pts + max(0, packet.duration), stream: index)
            if spans[index] == nil { spans[index] = Span(start: microseconds(ofTicks: pts, stream: index), end: end) }
            spans[index]!.end = max(spans[index]!.end, end)
        }
        packet.rescaleTimestamps(from: encoderTimeBases[index], to: timeBase(of: index))
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
        try checkIOError()
    }

    /// Pushes what the muxer and the I/O layer buffer to the file (`av_write_frame(ctx, NULL)`,
    /// `avio_flush`), so a killed process leaves a readable file up to here.
    func flush() throws(FFmpegError) {
        guard headerWritten && !finished else { return }
        if context.pointee.oformat.pointee.flags & AVFMT_ALLOW_FLUSH != 0 {
            try check(av_write_frame(context, nil), "av_write_frame")
        }
        if let pb = context.pointee.pb { avio_flush(pb) }
        try checkIOError()
    }

    /// Writes the trailer once and closes the file (`av_write_trailer`, `avio_closep`).
    /// Calling it again does nothing; before the header it only closes.
    func finish() throws(FFmpegError) {
        guard !finished else { return }
        finished = true
        var failure: FFmpegError?
        if headerWritten {
            let code = av_write_trailer(context)
            if code < 0 { failure = FFmpegError(code, call: "av_write_trailer") }
            if failure == nil { do { try checkIOError() } catch { failure = error } }
        }
        if let pb = context.pointee.pb {
            bytesWritten = avio_size(pb)
            avio_closep(&context.pointee.pb)
        }
        if let failure { throw failure }
    }

    /// A write error the I/O layer noted (`AVIOContext.error`), such as ENOSPC.
    private func checkIOError() throws(FFmpegError) {
        guard let pb = context.pointee.pb else { return }
        if pb.pointee.error < 0 { throw FFmpegError(pb.pointee.error, call: "avio_write") }
        bytesWritten = max(bytesWritten, avio_tell(pb))
    }
}
