/// Which V4L2 pixel formats FFmpeg's v4l2 input can capture, and the name its `input_format`
/// option takes for each.
///
/// FFmpeg keeps this table private (`ff_fmt_conversion_table` in libavdevice/v4l2-common.c,
/// not exported), so it is restated here for FFmpeg 5.1. Order matters as it does there: when
/// two fourccs share a name (YU12 and YV12 are both `yuv420p`), the v4l2 input asks for the
/// first one the camera accepts.
enum FFmpegV4L2Formats {
    struct Entry {
        var fourcc: String
        /// A pixel format name for raw formats, a decoder name for compressed ones.
        var name: String
        var compressed: Bool
    }

    static let table: [Entry] = [
        Entry(fourcc: "YU12", name: "yuv420p", compressed: false),
        Entry(fourcc: "YV12", name: "yuv420p", compressed: false),
        Entry(fourcc: "422P", name: "yuv422p", compressed: false),
        Entry(fourcc: "YUYV", name: "yuyv422", compressed: false),
        Entry(fourcc: "UYVY", name: "uyvy422", compressed: false),
        Entry(fourcc: "411P", name: "yuv411p", compressed: false),
        Entry(fourcc: "YUV9", name: "yuv410p", compressed: false),
        Entry(fourcc: "YVU9", name: "yuv410p", compressed: false),
        Entry(fourcc: "RGBO", name: "rgb555le", compressed: false),
        Entry(fourcc: "RGBQ", name: "rgb555be", compressed: false),
        Entry(fourcc: "RGBP", name: "rgb565le", compressed: false),
        Entry(fourcc: "RGBR", name: "rgb565be", compressed: false),
        Entry(fourcc: "BGR3", name: "bgr24", compressed: false),
        Entry(fourcc: "RGB3", name: "rgb24", compressed: false),
        Entry(fourcc: "BGR4", name: "bgr0", compressed: false),
        Entry(fourcc: "RGB4", name: "0rgb", compressed: false),
        Entry(fourcc: "GREY", name: "gray", compressed: false),
        Entry(fourcc: "Y16 ", name: "gray16le", compressed: false),
        Entry(fourcc: "NV12", name: "nv12", compressed: false),
        Entry(fourcc: "MJPG", name: "mjpeg", compressed: true),
        Entry(fourcc: "JPEG", name: "mjpeg", compressed: true),
        Entry(fourcc: "H264", name: "h264", compressed: true),
        Entry(fourcc: "CPIA", name: "cpia", compressed: true),
        Entry(fourcc: "BA81", name: "bayer_bggr8", compressed: false),
        Entry(fourcc: "GBRG", name: "bayer_gbrg8", compressed: false),
        Entry(fourcc: "GRBG", name: "bayer_grbg8", compressed: false),
        Entry(fourcc: "RGGB", name: "bayer_rggb8", compressed: false),
    ]

    /// The `input_format` name for a fourcc, nil when FFmpeg's v4l2 input cannot capture it.
    static func name(fourcc: String) -> String? {
        table.first { $0.fourcc == fourcc }?.name
    }

    /// The fourccs FFmpeg's v4l2 input may ask for under `name`, in the order it tries them.
    static func fourccs(name: String) -> [String] {
        table.filter { $0.name == name }.map(\.fourcc)
    }
}
