/// The V4L2 pixel formats capture's own V4L2 reader records, and what each becomes for FFmpeg.
///
/// FFmpeg 5.1's v4l2 input has no multiplanar support, so a camera that captures through the
/// multiplanar API only is read by `V4L2Stream` instead; its pictures reach the decoder as rawvideo
/// packets of the pixel format named here (or, for MJPEG, as the camera's own JPEG packets).
/// Formats whose planes sit in separate memory buffers (NV12M, YUV420M ...) are packed into one
/// picture on the way; a planar format whose chroma planes come in the other order (YVU420M)
/// names the order in which its memory planes fill FFmpeg's planes.
enum NativeV4L2Formats {
    struct Entry: Hashable, Sendable {
        /// The V4L2 fourcc, e.g. "NM12" for NV12M.
        var fourcc: String
        /// The FFmpeg pixel format name for raw formats, the decoder name for compressed ones.
        var name: String
        /// How many memory planes the driver fills (V4L2's `num_planes`): 1 for contiguous formats.
        var memoryPlanes: Int
        /// The FFmpeg planes in the order the camera's memory holds them (one per memory plane
        /// when there are several); nil when that is FFmpeg's own order.
        var planeOrder: [Int]?
        /// For a semi-planar format recorded as planar (NV16 as yuv422p: FFmpeg 5.1's swscale
        /// takes no NV16): where U and V sit in each pair of its interleaved chroma plane.
        var interleavedChroma: [Int]? = nil
        var compressed: Bool
    }

    static let table: [Entry] = {
        var entries: [Entry] = []
        func add(_ fourcc: String, _ name: String, memoryPlanes: Int = 1, order: [Int]? = nil, compressed: Bool = false)
        {
            entries.append(
                Entry(fourcc: fourcc, name: name, memoryPlanes: memoryPlanes, planeOrder: order, compressed: compressed)
            )
        }
        // One memory plane, laid out as FFmpeg's rawvideo expects it.
        for (fourcc, name) in [
            ("YUYV", "yuyv422"), ("UYVY", "uyvy422"), ("YVYU", "yvyu422"), ("YU12", "yuv420p"), ("422P", "yuv422p"),
            ("NV12", "nv12"), ("NV21", "nv21"), ("NV24", "nv24"), ("NV42", "nv42"),
            ("GREY", "gray"), ("Y10 ", "gray10le"), ("Y12 ", "gray12le"), ("Y16 ", "gray16le"),
            ("RGB1", "rgb8"), ("RGBP", "rgb565le"), ("RGBR", "rgb565be"), ("RGBO", "rgb555le"), ("XR15", "rgb555le"),
            ("RGBQ", "rgb555be"), ("XR12", "rgb444le"), ("XB12", "bgr444le"), ("XB15", "bgr555le"),
            ("RGB3", "rgb24"), ("BGR3", "bgr24"), ("BGR4", "bgr0"), ("RGB4", "0rgb"), ("XR24", "bgr0"),
            ("AR24", "bgra"), ("XB24", "rgb0"), ("AB24", "rgba"), ("BX24", "0rgb"), ("BA24", "argb"),
            ("RX24", "0bgr"), ("RA24", "abgr"), ("BA81", "bayer_bggr8"), ("GBRG", "bayer_gbrg8"),
            ("GRBG", "bayer_grbg8"), ("RGGB", "bayer_rggb8"),
            // The alpha bits of these are where FFmpeg's format has unused ones: kept, not read.
            ("R444", "rgb444le"), ("AR12", "rgb444le"), ("AB12", "bgr444le"), ("AR15", "rgb555le"),
            ("AB15", "bgr555le"),
            // Big-endian variants (the fourcc's bit 31 set, "-BE" as v4l2-ctl prints it).
            ("XR15-BE", "rgb555be"), ("AR15-BE", "rgb555be"), ("Y16 -BE", "gray16be"),
            // 16-bit Bayer; 10- and 12-bit Bayer (in 16-bit words too) have no FFmpeg format.
            ("BYR2", "bayer_bggr16le"), ("GB16", "bayer_gbrg16le"), ("GR16", "bayer_grbg16le"),
            ("RG16", "bayer_rggb16le"),
        ] {
            add(fourcc, name)
        }
        // Semi-planar 4:2:2, which FFmpeg 5.1 stores but cannot convert: split into planar.
        for (fourcc, planes, chroma) in [
            ("NV16", 1, [0, 1]), ("NV61", 1, [1, 0]), ("NM16", 2, [0, 1]), ("NM61", 2, [1, 0]),
        ] {
            entries.append(
                Entry(
                    fourcc: fourcc, name: "yuv422p", memoryPlanes: planes, planeOrder: nil, interleavedChroma: chroma,
                    compressed: false))
        }
        // Planar with the chroma planes the other way round.
        add("YV12", "yuv420p", order: [0, 2, 1])
        add("MJPG", "mjpeg", compressed: true)
        add("JPEG", "mjpeg", compressed: true)
        // Several memory planes: luma, then chroma, each in a buffer of its own.
        add("NM12", "nv12", memoryPlanes: 2)
        add("NM21", "nv21", memoryPlanes: 2)
        add("YM12", "yuv420p", memoryPlanes: 3)
        add("YM21", "yuv420p", memoryPlanes: 3, order: [0, 2, 1])
        add("YM16", "yuv422p", memoryPlanes: 3)
        add("YM61", "yuv422p", memoryPlanes: 3, order: [0, 2, 1])
        add("YM24", "yuv444p", memoryPlanes: 3)
        add("YM42", "yuv444p", memoryPlanes: 3, order: [0, 2, 1])
        return entries
    }()

    /// The entry for `fourcc`, nil when the native reader cannot record it.
    static func entry(fourcc: String) -> Entry? {
        table.first { $0.fourcc == fourcc }
    }

    /// The FFmpeg name `fourcc` is recorded as by the native reader, nil when it cannot record it.
    static func name(fourcc: String) -> String? { entry(fourcc: fourcc)?.name }

    /// The V4L2 pixel format code of a four-character code (v4l2_fourcc: first character in the
    /// lowest byte), with bit 31 set for a big-endian one named "Y16 -BE" (v4l2_fourcc_be), as
    /// `CameraProber.fourcc` names it.
    static func code(fourcc: String) -> UInt32 {
        let code = fourcc.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        return fourcc.hasSuffix("-BE") ? code | 1 << 31 : code
    }

    /// The number of MMAP buffers to ask the driver for: `requested` when given, else what holds
    /// half a second at `rate` frames per second (4 when the rate is unknown); never fewer than
    /// 2 (one with the driver, one with the recorder) nor more than `maximumBuffers`, the most
    /// the kernel's videobuf2 keeps for one queue. The driver may still answer with another count.
    static func bufferCount(requested: Int?, rate: Rational?) -> Int {
        if let requested { return min(max(requested, 2), maximumBuffers) }
        guard let rate, rate.doubleValue > 0 else { return 4 }
        return min(max(Int((rate.doubleValue / 2).rounded(.up)), 4), maximumBuffers)
    }

    /// VB2_MAX_FRAME of the kernels capture runs on (32 up to Linux 6.7).
    static let maximumBuffers = 32
}
