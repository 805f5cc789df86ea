internal import CFFmpeg

/// The codec parameters of one stream, kept to set up a muxer again after a reconnect.
///
/// Owns an `AVCodecParameters` (`avcodec_parameters_alloc`, freed in deinit). Immutable once
/// made, so muxers on other threads may copy from it.
final class StreamParameters: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    /// The time base the packets come in (the encoder's).
    let timeBase: AVRational
    /// Frames per second for video, 0/0 otherwise.
    let frameRate: AVRational

    /// The parameters `encoder` writes (`avcodec_parameters_from_context`).
    init(encoder: Encoder) throws(FFmpegError) {
        guard let parameters = avcodec_parameters_alloc() else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avcodec_parameters_alloc")
        }
        self.parameters = parameters
        timeBase = encoder.timeBase
        frameRate =
            encoder.context.pointee.codec_type == AVMEDIA_TYPE_VIDEO
            ? encoder.context.pointee.framerate : AVRational(num: 0, den: 0)
        try check(avcodec_parameters_from_context(parameters, encoder.context), "avcodec_parameters_from_context")
    }

    /// The parameters of an input stream whose packets are copied (`avcodec_parameters_copy`).
    init(copying input: InputContainer, stream index: Int, timeBase: AVRational) throws(FFmpegError) {
        guard let parameters = avcodec_parameters_alloc() else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avcodec_parameters_alloc")
        }
        self.parameters = parameters
        self.timeBase = timeBase
        frameRate = AVRational(num: 0, den: 0)
        try check(avcodec_parameters_copy(parameters, input.stream(index).pointee.codecpar), "avcodec_parameters_copy")
        parameters.pointee.codec_tag = 0
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&pointer)
    }

    var isVideo: Bool { parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
}

/// A muxer writing to a network URL (`AVFormatContext` from `avformat_alloc_output_context2` with
/// its own `avio_open2`): one connection, from the header to the trailer. A reconnect is a new
/// `NetworkMuxer`.
///
/// Every blocking call (connect, handshake, write) is bounded by `deadline`. Not thread-safe: one
/// thread uses it; only `deadline.abort()` may come from another.
final class NetworkMuxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    private let streams: [StreamParameters]
    private let deadline: NetworkDeadline
    private var opened = false
    private var finished = false
    /// Bytes of the packets handed to a muxer that keeps its own connection (RTSP), which has no
    /// `pb` to ask.
    private var payloadBytes: Int64 = 0
    /// True when the muxer opens its connection itself in `avformat_write_header` (`AVFMT_NOFILE`:
    /// RTSP's ANNOUNCE and RECORD), so there is no `avio_open2` of ours.
    private var connectsItself: Bool { context.pointee.oformat.pointee.flags & AVFMT_NOFILE != 0 }

    /// Sets up the muxer `formatName` with one stream for each of `streams`, in order; nothing is
    /// connected yet.
    init(url: String, formatName: String, streams: [StreamParameters], deadline: NetworkDeadline) throws(FFmpegError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, formatName, url), "avformat_alloc_output_context2")
        guard let context else { throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_alloc_output_context2") }
        self.context = context
        self.streams = streams
        self.deadline = deadline
        context.pointee.interrupt_callback = deadline.callback
        for source in streams {
            guard let stream = avformat_new_stream(context, nil) else {
                throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avformat_new_stream")
            }
            try check(avcodec_parameters_copy(stream.pointee.codecpar, source.parameters), "avcodec_parameters_copy")
            stream.pointee.time_base = source.timeBase
            if source.isVideo { stream.pointee.avg_frame_rate = source.frameRate }
        }
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Connects and writes the header (`avio_open2` with the interrupt callback, then
    /// `avformat_write_header`), within `timeout` seconds for both. A muxer that connects itself
    /// (RTSP) does both in `avformat_write_header`, bounded by the context's interrupt callback.
    ///
    /// - Parameter options: protocol options for `avio_open2` (`rw_timeout`, SRT's `latency`), or
    ///   the muxer's own for one that connects itself (RTSP's `rtsp_transport`).
    /// - Throws: `FFmpegError` from `avio_open2` (refused, unresolvable, `AVERROR_EXIT` when the
    ///   deadline passed) or from the muxer and the server's answer to it.
    func open(url: String, options: [String: String], timeout: Double) throws(FFmpegError) {
        precondition(!opened)
        deadline.arm(seconds: timeout)
        defer { deadline.disarm() }
        if connectsItself {
            let (code, _) = withOptionDictionary(options) { dictionary in avformat_write_header(context, &dictionary) }
            try check(code, "avformat_write_header")
            opened = true
            return
        }
        var callback = deadline.callback
        let (code, _) = withOptionDictionary(options) { dictionary in
            avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, &dictionary)
        }
        try check(code, "avio_open2")
        try check(avformat_write_header(context, nil), "avformat_write_header")
        avio_flush(context.pointee.pb)
        try checkIOError()
        opened = true
    }

    /// Writes a packet in the time base of its stream's `StreamParameters`, rescaled to the
    /// muxer's (`av_packet_rescale_ts`, `av_interleaved_write_frame`); a write blocked for more
    /// than `timeout` seconds fails. Takes the packet's payload.
    func write(_ packet: Packet, stream index: Int, timeout: Double) throws(FFmpegError) {
        packet.streamIndex = index
        packet.rescaleTimestamps(from: streams[index].timeBase, to: context.pointee.streams[index]!.pointee.time_base)
        deadline.arm(seconds: timeout)
        defer { deadline.disarm() }
        let size = Int64(packet.size)
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
        try checkIOError()
        payloadBytes += size
    }

    /// Writes the trailer once and closes the connection (`av_write_trailer`, `avio_closep`);
    /// without `trailer`, only closes (a connection already broken).
    func finish(trailer: Bool, timeout: Double) throws(FFmpegError) {
        guard !finished else { return }
        finished = true
        var failure: FFmpegError?
        if opened && trailer {
            deadline.arm(seconds: timeout)
            let code = av_write_trailer(context)
            if code < 0 { failure = FFmpegError(code, call: "av_write_trailer") }
            if failure == nil, let pb = context.pointee.pb { avio_flush(pb) }
            deadline.disarm()
        }
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        if let failure { throw failure }
    }

    /// Bytes sent so far on this connection (`avio_tell`); for a muxer that connects itself, the
    /// packets' payload, without its RTP and RTSP framing.
    var bytesWritten: Int64 { context.pointee.pb.map { avio_tell($0) } ?? payloadBytes }

    /// A write error the I/O layer noted (`AVIOContext.error`), such as EPIPE.
    private func checkIOError() throws(FFmpegError) {
        guard let pb = context.pointee.pb else { return }
        if pb.pointee.error < 0 { throw FFmpegError(pb.pointee.error, call: "avio_write") }
    }
}
