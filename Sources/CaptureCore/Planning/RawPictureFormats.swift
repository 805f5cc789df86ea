/// Which pixel formats each container carries as raw pictures that FFmpeg 5.1 reads back as
/// written: the same pixel format and every frame.
///
/// The muxers take raw video in nearly any pixel format but tag it only for some: MOV writes
/// 4:2:0 as `raw ` that a reader takes for RGB, Matroska refuses RGB at the header, AVI swaps
/// rgb24 for bgr24. The lists were found by writing each pixel format and decoding the file
/// with ffprobe; a `yuvj*` format counts as its plain form, which readers give back with the
/// full-range flag and the same pictures.
enum RawPictureFormats {
    /// Formats a container carries; a muxer missing here carries all but `nutMisread`.
    private static let carried: [String: Set<String>] = [
        "mov": [
            "yuyv422", "uyvy422", "rgb24", "bgr24", "argb", "rgba", "abgr", "bgra", "gray16be", "rgb48be",
            "rgb565be", "rgb565le", "rgb555be", "rgb555le",
        ],
        "avi": [
            "yuv420p", "yuyv422", "bgr24", "yuv422p", "yuv410p", "yuv411p", "gray", "uyvy422", "nv12", "nv21",
            "rgba", "bgra", "rgb555le", "yvyu422",
        ],
        "matroska": [
            "yuv420p", "yuyv422", "yuv422p", "yuv410p", "yuv411p", "gray", "uyvy422", "nv12", "nv21", "rgba",
            "yvyu422",
        ],
        // The muxer writes its deeper and alpha formats only at unofficial strictness: they are
        // YUV4MPEG extensions other readers do not know.
        "yuv4mpegpipe": ["yuv420p", "yuv422p", "yuv444p", "yuv411p", "gray"],
    ]

    /// What NUT tags with a code its reader takes for another format.
    private static let nutMisread: Set<String> = [
        "ya16be", "ya16le", "yuv440p10le", "yuv440p10be", "yuv440p12le", "yuv440p12be", "ayuv64le",
        "p010le", "p010be", "p016le", "p016be", "gbrpf32be", "gbrpf32le", "gbrapf32be", "gbrapf32le",
        "grayf32be", "grayf32le", "nv24", "nv42", "x2rgb10le", "x2bgr10le", "p210be", "p210le", "p410be",
        "p410le", "p216be", "p216le", "p416be", "p416le", "yuvj411p",
    ]

    /// The formats offered instead, in the order a message names them.
    private static let common = ["yuv420p", "yuv422p", "yuv444p", "yuyv422", "uyvy422", "nv12", "rgb24", "bgr24"]

    /// True when `container` carries raw pictures in the pixel format named `name`.
    static func holds(_ container: ContainerFormat, _ name: String) -> Bool {
        let plain = name.hasPrefix("yuvj") && name != "yuvj411p" ? "yuv" + name.dropFirst(4) : name
        guard let formats = carried[container.muxer] else { return !nutMisread.contains(name) }
        return formats.contains(plain)
    }

    /// Refuses raw pictures in `name` for a container that does not carry them readably.
    ///
    /// - Throws: `RecordingPlanError.pixelFormatNotInContainer` (64) naming up to three common
    ///   formats the container carries and the extensions that carry `name` (with audio beside it
    ///   if `withAudio`).
    static func check(_ name: String, in container: ContainerFormat, withAudio: Bool) throws(RecordingPlanError) {
        guard !holds(container, name) else { return }
        throw .pixelFormatNotInContainer(
            name, fileExtension: container.fileExtension,
            use: Array(common.filter { holds(container, $0) }.prefix(3)),
            others: extensions(holding: name, withAudio: withAudio))
    }

    /// The extensions that carry raw video in `name` (all raw formats NUT carries when nil),
    /// and audio beside it if `withAudio`: `.nut, .mkv`.
    static func extensions(holding name: String?, withAudio: Bool = false) -> String {
        ContainerFormat.extensions { other in
            guard other.holdsVideo, !withAudio || other.holdsAudio, let id = CodecChoice.codecID(.raw, in: other),
                CodecChoice.holds(other, id)
            else { return false }
            guard let name else { return other.muxer == "nut" }
            return holds(other, name)
        }
    }
}
