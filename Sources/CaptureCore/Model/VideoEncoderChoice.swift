/// Which H.264 encoder records a camera: x264 in software, one of FFmpeg's hardware encoders, or
/// the first of those whose device this machine has (`auto`).
public enum VideoEncoderChoice: String, CaseIterable, Codable, Sendable {
    case auto, x264, vaapi, v4l2m2m, nvenc, qsv

    /// FFmpeg's name of the encoder (`libx264`, `h264_vaapi` ...); nil for `auto`.
    public var encoderName: String? {
        switch self {
        case .auto: nil
        case .x264: "libx264"
        case .vaapi: "h264_vaapi"
        case .v4l2m2m: "h264_v4l2m2m"
        case .nvenc: "h264_nvenc"
        case .qsv: "h264_qsv"
        }
    }

    /// The hardware encoders in the order `auto` tries them.
    static let hardware: [VideoEncoderChoice] = [.nvenc, .vaapi, .qsv, .v4l2m2m]
}
