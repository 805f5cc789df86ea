internal import CFFmpeg

/// What the mode selector's messages say of a camera's formats, and which names are formats.
extension ModeSelector {
    /// "capture's own V4L2 reader cannot capture NV16": which readers were asked, and `what`.
    static func cannotCapture(_ what: String, probe: CameraProbe, reader: V4L2Reader?) -> String {
        if probe.multiplanar || reader == .native { return "capture's own V4L2 reader cannot capture \(what)" }
        if reader == .ffmpeg { return "FFmpeg's v4l2 input cannot capture \(what)" }
        return "neither capture's own V4L2 reader nor FFmpeg's v4l2 input can capture \(what)"
    }

    /// True when `name` is a V4L2 fourcc FFmpeg knows, or a name FFmpeg's v4l2 input, pixel
    /// formats or decoders know; false for a name that is no format at all.
    static func isKnownInputFormat(_ name: String) -> Bool {
        let wanted = name.trimmingTrailingSpaces
        return !FFmpegV4L2Formats.fourccs(name: wanted.lowercased()).isEmpty
            || FFmpegV4L2Formats.table.contains { $0.fourcc.trimmingTrailingSpaces == wanted.uppercased() }
            || isFFmpegFormatName(wanted.lowercased())
    }

    /// The error for an input format with a source that has one fixed format (the test
    /// pattern, a lavfi graph): `.usage` (64) for a name that is no format, else `.notSupported`
    /// (69) saying what the source delivers.
    static func fixedFormatError(_ name: String, device: String, delivers: String) -> CaptureError {
        guard isKnownInputFormat(name) else {
            return .usage(
                "unknown input format '\(name)': give a fourcc (YUYV, MJPG) or an FFmpeg name (yuyv422, mjpeg, nv12, h264)"
            )
        }
        return .notSupported(device: device, reason: "\(.inputFormat) does not apply: \(delivers)")
    }

    /// True for an FFmpeg pixel format (`av_get_pix_fmt`) or decoder name (`avcodec_find_decoder_by_name`).
    static func isFFmpegFormatName(_ name: String) -> Bool {
        av_get_pix_fmt(name) != AV_PIX_FMT_NONE || avcodec_find_decoder_by_name(name) != nil
    }

    /// "YUYV (yuyv422), NV12 (nv12)": the formats a reader captures, with the names FFmpeg gives
    /// them; of a camera with many (vivid has 90), the first `listed`, how many more, and how
    /// many cannot be recorded, pointing to `probe` for them all.
    static func offered(_ probe: CameraProbe) -> String {
        var seen = Set<String>()
        let formats = probe.formats.filter { seen.insert($0.fourcc).inserted }
        let recordable = formats.filter { $0.ffmpegName != nil }
        var text = recordable.prefix(listed).map { "\($0.fourcc.trimmingTrailingSpaces) (\($0.ffmpegName ?? ""))" }
            .joined(separator: ", ")
        if recordable.count > listed { text += " and \(recordable.count - listed) more" }
        let others = formats.count - recordable.count
        if others > 0 { text += (text.isEmpty ? "" : "; ") + "\(others) that cannot be recorded" }
        if recordable.count > listed || others > 0 { text += " (capture probe \(probe.path) lists them all)" }
        return text
    }

    /// Formats `offered` names one by one.
    static let listed = 12
}
