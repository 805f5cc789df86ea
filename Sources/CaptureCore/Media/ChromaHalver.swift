internal import CFFmpeg

/// Makes 4:2:0 pictures of 4:2:2 planar ones of the same size and range (a webcam's JPEGs as
/// decoded), touching the chroma planes only: the new picture references the source's luma plane
/// and gets its two chroma planes halved vertically by libswscale, each plane scaled as a grey
/// picture (`sws_scale`, `SWS_FAST_BILINEAR` as the whole-picture conversion had: each new row is
/// the mean of the two it stands between, where MPEG's 4:2:0 sites it; across a row, a sharp edge
/// is softened by a few levels).
///
/// A whole-picture conversion passes the luma through libswscale too, two thirds of the samples
/// for nothing: this pass costs half its CPU (SWS_BILINEAR, exact across a row, would cost four
/// fifths; SWS_AREA more than the whole picture). Its chroma buffers come from a pool of reused
/// ones.
///
/// Owns its `SwsContext` (`sws_getContext`, freed with `sws_freeContext`) and its buffer pool
/// (`av_buffer_pool_init`, uninitialised in deinit; buffers still held by pictures outlive it).
/// Used by one thread.
final class ChromaHalver {
    let width: Int
    let height: Int
    private let context: OpaquePointer
    private let pool: OpaquePointer
    private let chromaWidth: Int
    private let chromaHeight: Int
    private let chromaLinesize: Int

    /// True when `format` is one it takes: 8-bit planar 4:2:2 (`yuv422p`, `yuvj422p`).
    static func takes(_ format: AVPixelFormat) -> Bool {
        format == AV_PIX_FMT_YUV422P || format == AV_PIX_FMT_YUVJ422P
    }

    /// A halver for pictures of `width` x `height` pixels.
    ///
    /// - Throws: `FFmpegError` from `sws_getContext` or `av_buffer_pool_init`.
    init(width: Int, height: Int) throws(FFmpegError) {
        self.width = width
        self.height = height
        chromaWidth = (width + 1) / 2
        chromaHeight = (height + 1) / 2
        chromaLinesize = (chromaWidth + 63) & ~63
        guard
            let context = sws_getContext(
                Int32(chromaWidth), Int32(height), AV_PIX_FMT_GRAY8, Int32(chromaWidth), Int32(chromaHeight),
                AV_PIX_FMT_GRAY8, SWS_FAST_BILINEAR, nil, nil, nil)
        else { throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "sws_getContext") }
        guard let pool = av_buffer_pool_init(chromaLinesize * chromaHeight * 2 + 64, nil) else {
            sws_freeContext(context)
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_buffer_pool_init")
        }
        self.context = context
        self.pool = pool
    }

    deinit {
        sws_freeContext(context)
        var pool: OpaquePointer? = pool
        av_buffer_pool_uninit(&pool)
    }

    /// A `yuv420p` picture of `frame` (a 4:2:2 planar picture of this size), its pts, range and
    /// other properties the source's (`av_frame_copy_props`); full range stays full.
    ///
    /// - Throws: `FFmpegError` from `av_frame_copy_props`, `av_buffer_ref`, `av_buffer_pool_get`
    ///   or `sws_scale`.
    func halve(_ frame: Frame) throws(FFmpegError) -> Frame {
        let source = frame.pointer
        let output = try Frame()
        let made = output.pointer
        try check(av_frame_copy_props(made, source), "av_frame_copy_props")
        if source.pointee.format == AV_PIX_FMT_YUVJ422P.rawValue { made.pointee.color_range = AVCOL_RANGE_JPEG }
        made.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        made.pointee.width = Int32(width)
        made.pointee.height = Int32(height)
        guard let luma = av_frame_get_plane_buffer(source, 0), let lumaReference = av_buffer_ref(luma) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_buffer_ref")
        }
        made.pointee.buf.0 = lumaReference
        made.pointee.data.0 = source.pointee.data.0
        made.pointee.linesize.0 = source.pointee.linesize.0
        guard let chroma = av_buffer_pool_get(pool), let base = chroma.pointee.data else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_buffer_pool_get")
        }
        made.pointee.buf.1 = chroma
        let aligned = base + (64 - Int(bitPattern: base) % 64) % 64
        made.pointee.data.1 = aligned
        made.pointee.data.2 = aligned + chromaLinesize * chromaHeight
        made.pointee.linesize.1 = Int32(chromaLinesize)
        made.pointee.linesize.2 = Int32(chromaLinesize)
        try halvePlane(from: source.pointee.data.1, linesize: source.pointee.linesize.1, into: made.pointee.data.1)
        try halvePlane(from: source.pointee.data.2, linesize: source.pointee.linesize.2, into: made.pointee.data.2)
        return output
    }

    private func halvePlane(
        from plane: UnsafeMutablePointer<UInt8>?, linesize: Int32, into target: UnsafeMutablePointer<UInt8>?
    ) throws(FFmpegError) {
        var sources: [UnsafePointer<UInt8>?] = [UnsafePointer(plane), nil, nil, nil]
        var sourceLinesizes: [Int32] = [linesize, 0, 0, 0]
        var targets: [UnsafeMutablePointer<UInt8>?] = [target, nil, nil, nil]
        var targetLinesizes: [Int32] = [Int32(chromaLinesize), 0, 0, 0]
        let rows = sws_scale(context, &sources, &sourceLinesizes, 0, Int32(height), &targets, &targetLinesizes)
        if rows < 0 { throw FFmpegError(rows, call: "sws_scale") }
    }
}
