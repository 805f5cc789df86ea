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
    init(
        sourceWidth: Int, sourceHeight: Int, sourceFormat: AVPixelFormat,
        width: Int, height: Int, pixelFormat: AVPixelFormat
    ) throws(FFmpegError) {
        guard
            let context = sws_getContext(
                Int32(sourceWidth), Int32(sourceHeight), sourceFormat, Int32(width), Int32(height), pixelFormat,
                SWS_BICUBIC, nil, nil, nil)
        else { throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "sws_getContext") }
        self.context = context
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.sourceFormat = sourceFormat
    }

    deinit { sws_freeContext(context) }

    /// A new picture holding `frame` converted; its pts is the source's (`sws_scale_frame`).
    func scale(_ frame: Frame) throws(FFmpegError) -> Frame {
        let output = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        try check(sws_scale_frame(context, output.pointer, frame.pointer), "sws_scale_frame")
        output.pts = frame.pts
        return output
    }
}
