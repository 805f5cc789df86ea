internal import CFFmpeg

/// Rewrites packets without decoding them (`AVBSFContext`): `mjpeg2jpeg` turns a camera's MJPEG
/// frame, which often leaves out the Huffman tables (UVC cameras send the standard ones
/// implicitly), into a JPEG file that any image viewer opens.
///
/// Owns its context (`av_bsf_alloc`, freed with `av_bsf_free` in deinit). One thread at a time.
final class BitstreamFilter {
    private let context: UnsafeMutablePointer<AVBSFContext>

    /// The filter `name` for stream `index` of `input`, initialized (`av_bsf_get_by_name`,
    /// `av_bsf_alloc`, `avcodec_parameters_copy`, `av_bsf_init`). Packets keep the stream's time base.
    ///
    /// - Throws: `FFmpegError` (`ENOSYS` when this FFmpeg has no such filter, or the filter's
    ///   refusal of the stream's codec from `av_bsf_init`).
    init(_ name: String, input: InputContainer, stream index: Int) throws(FFmpegError) {
        guard let filter = av_bsf_get_by_name(name) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOSYS), call: "av_bsf_get_by_name(\(name))")
        }
        var allocated: UnsafeMutablePointer<AVBSFContext>?
        try check(av_bsf_alloc(filter, &allocated), "av_bsf_alloc")
        guard let allocated else { throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_bsf_alloc") }
        context = allocated
        let stream = input.stream(index)
        try check(avcodec_parameters_copy(context.pointee.par_in, stream.pointee.codecpar), "avcodec_parameters_copy")
        context.pointee.time_base_in = stream.pointee.time_base
        try check(av_bsf_init(context), "av_bsf_init(\(name))")
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVBSFContext>? = context
        av_bsf_free(&pointer)
    }

    /// Hands `packet` to the filter (`av_bsf_send_packet`), which takes its payload: `packet` is
    /// left empty. Nil starts draining.
    func send(_ packet: Packet?) throws(FFmpegError) {
        let code = av_bsf_send_packet(context, packet?.pointer)
        if code == CFFmpeg_AVERROR_EOF && packet == nil { return }
        try check(code, "av_bsf_send_packet")
    }

    /// Takes the next filtered packet (`av_bsf_receive_packet`).
    ///
    /// - Returns: false when the filter needs more input or is drained (EAGAIN, EOF).
    func receive(into packet: Packet) throws(FFmpegError) -> Bool {
        let code = av_bsf_receive_packet(context, packet.pointer)
        if code == CFFmpeg_AVERROR_EAGAIN || code == CFFmpeg_AVERROR_EOF { return false }
        try check(code, "av_bsf_receive_packet")
        return true
    }
}
