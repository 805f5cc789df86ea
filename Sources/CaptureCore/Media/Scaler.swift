internal import CFFmpeg

/// Converts pictures between sizes and pixel formats (`SwsContext` from libswscale).
///
/// Owns its context (`sws_getContext`, freed with `sws_freeContext` in deinit).
final class Scaler {
    private let context: OpaquePointer
    let width: Int
    let height: Int
    let pixelFormat: AVPixelFormat
    let sourceWidth: Int
    let sourceHeight: Int
    let sourceFormat: AVPixelFormat

    /// A scaler from `source` size and format to `width` x `height` in `pixelFormat`.
    ///
    /// Full-range YUV (a JPEG's `yuvj*` formats, or `sourceFullRange`) is converted to the limited
    /// range of plain YUV targets with the BT.601 matrix both use, set explicitly
    /// (`sws_setColorspaceDetails`) rather than through the deprecated `yuvj*` formats, which make
    /// libswscale warn on every context; with `keepsFullRange` it stays full, which saves
    /// libswscale a pass over every sample (the stream then says so: `ColorRange.full`), and a
    /// picture of the same size is only resampled in its chroma, bilinearly (`SWS_FAST_BILINEAR`):
    /// together about half the conversion's cost for a webcam's 4:2:2 JPEGs.
    init(
        sourceWidth: Int, sourceHeight: Int, sourceFormat: AVPixelFormat, sourceFullRange: Bool = false,
        width: Int, height: Int, pixelFormat: AVPixelFormat, keepsFullRange: Bool = false
    ) throws(FFmpegError) {
        let (inFormat, inFull) = Self.undeprecated(sourceFormat)
        var (outFormat, outFull) = Self.undeprecated(pixelFormat)
        let keeps = keepsFullRange && (inFull || sourceFullRange)
        outFull = outFull || keeps
        let fast = keeps && sourceWidth == width && sourceHeight == height
        guard
            let context = sws_getContext(
                Int32(sourceWidth), Int32(sourceHeight), inFormat, Int32(width), Int32(height), outFormat,
                fast ? SWS_FAST_BILINEAR : SWS_BICUBIC, nil, nil, nil)
        else { throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "sws_getContext") }
        self.context = context
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.sourceFormat = sourceFormat
        self.sourceFullRange = sourceFullRange
        outputFullRange = outFull
        if inFull || sourceFullRange || outFull {
            // RGB sides ignore the range flag; for YUV, 1 is full range (JPEG) and 0 limited.
            let matrix = sws_getCoefficients(SWS_CS_ITU601)
            sws_setColorspaceDetails(
                context, matrix, inFull || sourceFullRange ? 1 : 0, matrix, outFull ? 1 : 0, 0, 1 << 16, 1 << 16)
        }
    }

    /// True when the source pictures are full-range YUV though their format does not say so.
    let sourceFullRange: Bool
    /// True when the pictures it makes are full-range.
    let outputFullRange: Bool

    /// The plain twin of a deprecated full-range `yuvj*` format, and whether it was one.
    private static func undeprecated(_ format: AVPixelFormat) -> (AVPixelFormat, Bool) {
        switch format {
        case AV_PIX_FMT_YUVJ420P: (AV_PIX_FMT_YUV420P, true)
        case AV_PIX_FMT_YUVJ422P: (AV_PIX_FMT_YUV422P, true)
        case AV_PIX_FMT_YUVJ444P: (AV_PIX_FMT_YUV444P, true)
        case AV_PIX_FMT_YUVJ440P: (AV_PIX_FMT_YUV440P, true)
        case AV_PIX_FMT_YUVJ411P: (AV_PIX_FMT_YUV411P, true)
        default: (format, false)
        }
    }

    deinit { sws_freeContext(context) }

    /// A new picture holding `frame` converted; its pts is the source's (`sws_scale_frame`).
    func scale(_ frame: Frame) throws(FFmpegError) -> Frame {
        let output = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        try check(sws_scale_frame(context, output.pointer, frame.pointer), "sws_scale_frame")
        output.pts = frame.pts
        output.pointer.pointee.color_range = outputFullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        return output
    }
}
