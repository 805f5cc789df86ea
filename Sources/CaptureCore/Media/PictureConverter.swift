/// Brings decoded pictures to one size and pixel format, in limited range unless full-range ones
/// are to stay so (`keepsFullRange`): the encoder's input.
///
/// Keeps one `Scaler` and makes a new one only when the pictures coming in change size, format or
/// range (a camera restarted in another mode, a decoder's first picture). Used by one thread.
final class PictureConverter {
    let width: Int
    let height: Int
    let pixelFormat: PixelFormat
    /// Full-range pictures (a JPEG's) stay full-range, for an encoder that tags its stream so.
    let keepsFullRange: Bool
    private var scaler: Scaler?
    private var halver: ChromaHalver?

    init(width: Int, height: Int, pixelFormat: PixelFormat, keepsFullRange: Bool = false) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.keepsFullRange = keepsFullRange
    }

    /// `frame` itself when it is already in the target size and format, else a converted copy.
    ///
    /// - Throws: `FFmpegError` from `sws_getContext` (a size or format libswscale cannot take)
    ///   or `sws_scale_frame`.
    func convert(_ frame: Frame) throws(FFmpegError) -> Frame {
        let source = frame.pixelFormatValue
        // A full-range picture in a plain YUV format still needs its range converted.
        let fullRange = frame.isFullRange && !source.isDeprecatedFullRange
        if frame.width == width && frame.height == height && source == pixelFormat && (!fullRange || keepsFullRange) {
            return frame
        }
        let sameSize = frame.width == width && frame.height == height
        let rangeStays = keepsFullRange || !(frame.isFullRange || source.isDeprecatedFullRange)
        if sameSize, pixelFormat == .yuv420p, ChromaHalver.takes(frame.pixelFormat), rangeStays {
            // A webcam's 4:2:2 JPEGs, their range kept: only the chroma changes.
            if let halver { return try halver.halve(frame) }
            let made = try ChromaHalver(width: width, height: height)
            halver = made
            return try made.halve(frame)
        }
        if let scaler, scaler.sourceWidth == frame.width, scaler.sourceHeight == frame.height,
            scaler.sourceFormat == source.av, scaler.sourceFullRange == fullRange
        {
            return try scaler.scale(frame)
        }
        let made = try Scaler(
            sourceWidth: frame.width, sourceHeight: frame.height, sourceFormat: source.av, sourceFullRange: fullRange,
            width: width, height: height, pixelFormat: pixelFormat.av, keepsFullRange: keepsFullRange)
        scaler = made
        return try made.scale(frame)
    }
}
