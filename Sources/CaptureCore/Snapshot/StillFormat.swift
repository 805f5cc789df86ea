internal import CFFmpeg
import FoundationEssentials
import Glibc

/// The picture file a still is written as, chosen by the output's extension.
public enum StillFormat: String, Sendable, CaseIterable, Codable {
    /// JPEG (`.jpg`, `.jpeg`): a camera's MJPEG frame as it came (made whole by `mjpeg2jpeg`),
    /// otherwise encoded by FFmpeg's `mjpeg` encoder at quality 2 (of 2-31).
    case jpeg
    /// PNG, 8-bit RGB.
    case png
    /// Binary PPM (P6), 8-bit RGB.
    case ppm
    /// Binary PGM (P5), 8-bit grey.
    case pgm

    /// The extensions taken, lower case, without the dot.
    public static let extensions = ["jpg", "jpeg", "png", "ppm", "pgm"]

    /// The format for `path`'s extension (any case).
    ///
    /// - Throws: `CaptureError.usage` (64) for another extension or none.
    public static func forPath(_ path: String) throws(CaptureError) -> StillFormat {
        switch path.pathExtension.lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "ppm": return .ppm
        case "pgm": return .pgm
        case let other:
            let given = other.isEmpty ? "no extension" : ".\(other)"
            throw .usage("\(path): \(given) is no picture format; use .jpg, .png, .ppm or .pgm")
        }
    }

    /// FFmpeg's encoder for the format.
    var encoderName: String {
        switch self {
        case .jpeg: "mjpeg"
        case .png: "png"
        case .ppm: "ppm"
        case .pgm: "pgm"
        }
    }

    /// The pixel format the encoder is given: full-range 4:2:0 YUV for JPEG (its own range, so
    /// no levels are lost), 8-bit RGB or grey for the others.
    var pixelFormat: AVPixelFormat {
        switch self {
        case .jpeg: AV_PIX_FMT_YUVJ420P
        case .png, .ppm: AV_PIX_FMT_RGB24
        case .pgm: AV_PIX_FMT_GRAY8
        }
    }
}
