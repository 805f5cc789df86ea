/// Brings decoded pictures to one size and pixel format, in limited range: the encoder's input.
///
/// Keeps one `Scaler` and makes a new one only when the pictures coming in change size, format or
/// range (a camera restarted in another mode, a decoder's first picture). Used by one thread.
final class PictureConverter {
    let width: Int
    let height: Int
    let pixelFormat: PixelFormat
    private var scaler: Scaler?

    init(width: Int, height: Int, pixelFormat: PixelFormat) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
    }

    /// `frame` itself when it is already in the target size and format, else a converted copy.
    ///
    /// - Throws: `FFmpegError` from `sws_getContext` (a size or format libswscale cannot take)
    ///   or `sws_scale_frame`.
    func convert(_ frame: Frame) throws(FFmpegError) -> Frame {
        let source = frame.pixelFormatValue
        // A full-range picture in a plain YUV format still needs its range converted.
        let fullRange = frame.isFullRange && !source.isDeprecatedFullRange
        if frame.width == width && frame.height == height && source == pixelFormat && !fullRange {
            return frame
        }
        if let scaler, scaler.sourceWidth == frame.width, scaler.sourceHeight == frame.height,
            scaler.sourceFormat == source.av, scaler.sourceFullRange == fullRange
        {
            return try scaler.scale(frame)
        }
        let made = try Scaler(
            sourceWidth: frame.width, sourceHeight: frame.height, sourceFormat: source.av, sourceFullRange: fullRange,
            width: width, height: height, pixelFormat: pixelFormat.av)
        scaler = made
        return try made.scale(frame)
    }
}
