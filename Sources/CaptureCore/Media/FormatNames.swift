internal import CFFmpeg

/// The names `record` takes for pixel formats and input formats, from the linked FFmpeg, so
/// the shell completions and the manual offer what this build accepts.
public enum FormatNames {
    /// Pixel formats a recording can be converted to: the ones libswscale writes
    /// (`sws_isSupportedOutput` over `av_pix_fmt_desc_next`), hardware formats left out. The 4:2:0
    /// ones libx264 takes come first, in its order, since H.264 (`VideoCodec.h264`) takes only those.
    public static var recordablePixelFormats: [String] {
        let x264 = PixelFormat.x264Formats420.map(\.name)
        var others: [String] = []
        var descriptor: UnsafePointer<AVPixFmtDescriptor>? = nil
        while let next = av_pix_fmt_desc_next(descriptor) {
            descriptor = next
            let format = av_pix_fmt_desc_get_id(next)
            guard next.pointee.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0, sws_isSupportedOutput(format) > 0,
                let name = repairedString(next.pointee.name), !x264.contains(name)
            else { continue }
            others.append(name)
        }
        return x264 + others.sorted()
    }

    /// The camera formats FFmpeg's v4l2 input can ask for (`input_format`): raw pixel formats and
    /// the compressed ones it decodes or copies, each once.
    public static var cameraInputFormats: [String] {
        var names: [String] = []
        for entry in FFmpegV4L2Formats.table where !names.contains(entry.name) { names.append(entry.name) }
        return names
    }
}
