internal import CFFmpeg

/// A pixel format by FFmpeg's name (`yuv420p`, `nv12`, `yuyv422`): `AVPixelFormat` as a value
/// recording code can hold without reaching into libavutil.
struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    let av: AVPixelFormat

    init(_ av: AVPixelFormat) { self.av = av }

    /// The format FFmpeg knows by `name` (`av_get_pix_fmt`); nil for a name it does not know.
    init?(name: String) {
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE else { return nil }
        av = format
    }

    static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)

    /// FFmpeg's name for the format (`av_get_pix_fmt_name`), "?" for one without.
    var name: String { repairedString(av_get_pix_fmt_name(av)) ?? "?" }

    var description: String { name }

    /// True for FFmpeg's deprecated `yuvj*` formats, which say full range in the format itself.
    var isDeprecatedFullRange: Bool { av.isDeprecatedFullRange }

    /// The format a player decodes from a stream `encoder` wrote from pictures in this format:
    /// x264 takes NV12 and NV21 as input layouts only, and an H.264 stream made from them is
    /// planar 4:2:0 like any other.
    func stored(by encoder: String) -> PixelFormat {
        encoder == "libx264" && (av == AV_PIX_FMT_NV12 || av == AV_PIX_FMT_NV21) ? .yuv420p : self
    }

    /// The 4:2:0 formats libx264 takes (`AVCodec.pix_fmts` with half-size chroma in both directions).
    static var x264Formats420: [PixelFormat] {
        Encoder.pixelFormats(of: "libx264").filter { format in
            guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
            return descriptor.pointee.log2_chroma_w == 1 && descriptor.pointee.log2_chroma_h == 1
                && descriptor.pointee.nb_components >= 3
        }.map(PixelFormat.init)
    }
}
