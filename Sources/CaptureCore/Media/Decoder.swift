internal import CFFmpeg

/// Decodes one input stream's packets into frames (`AVCodecContext` with a decoder).
///
/// Owns its codec context (`avcodec_alloc_context3`, freed with `avcodec_free_context` in deinit).
/// Raw video and PCM go through their trivial decoders too, so every source gives frames alike.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// A decoder for stream `index` of `input`, opened (`avcodec_parameters_to_context`,
    /// `avcodec_open2`). Packet timestamps keep the stream's time base.
    init(input: InputContainer, stream index: Int) throws(FFmpegError) {
        let stream = input.stream(index)
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOSYS), call: "avcodec_find_decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "avcodec_alloc_context3")
        }
        self.context = context
        try check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = stream.pointee.time_base
        try check(avcodec_open2(context, codec, nil), "avcodec_open2")
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&pointer)
    }

    /// Hands a packet to the decoder (`avcodec_send_packet`); nil starts draining.
    func send(_ packet: Packet?) throws(FFmpegError) {
        let code = avcodec_send_packet(context, packet?.pointer)
        // EOF after draining has begun is not an error for a caller that flushes twice.
        if code == CFFmpeg_AVERROR_EOF { return }
        try check(code, "avcodec_send_packet")
    }

    /// Takes the next decoded frame (`avcodec_receive_frame`).
    ///
    /// - Returns: false when the decoder needs more input or is drained (EAGAIN, EOF).
    func receive(into frame: Frame) throws(FFmpegError) -> Bool {
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == CFFmpeg_AVERROR_EAGAIN || code == CFFmpeg_AVERROR_EOF { return false }
        try check(code, "avcodec_receive_frame")
        return true
    }
}
