/// One H.264 encoder a camera's recording may open, on its device.
struct EncoderCandidate: Sendable, Equatable {
    let choice: VideoEncoderChoice
    /// The device it runs on (`/dev/dri/renderD128`, `/dev/video11`, `/dev/nvidia0`); nil for x264.
    let device: String?

    /// FFmpeg's name of the encoder.
    var encoderName: String { choice.encoderName ?? "libx264" }

    /// True for a hardware encoder: fixed-function, so the x264 budget does not apply.
    var isHardware: Bool { choice != .x264 }

    /// The pixel format it takes pictures in from memory: NV12 for VA-API (uploaded to the GPU's
    /// surfaces in that format) and Quick Sync, whose hardware reads only that; yuv420p, which
    /// every player takes, for the others.
    var pixelFormat: String { choice == .vaapi || choice == .qsv ? "nv12" : "yuv420p" }
}

/// The H.264 encoders a camera's recording tries, in order: the one asked for, or for `auto`
/// each hardware encoder whose device this machine has (NVENC, VA-API, Quick Sync, V4L2
/// memory-to-memory), then x264, which always opens. Pure: the devices come from a scan.
enum EncoderCandidates {
    /// - Throws: `.notSupported` (69) naming the encoder and what it lacks, for a hardware encoder
    ///   asked for whose device this machine does not have.
    static func list(_ choice: VideoEncoderChoice, devices: HardwareEncoderDevices) throws(CaptureError)
        -> [EncoderCandidate]
    {
        let x264 = EncoderCandidate(choice: .x264, device: nil)
        switch choice {
        case .x264:
            return [x264]
        case .auto:
            let found = VideoEncoderChoice.hardware.compactMap { hardware in
                devices.device(for: hardware).map { EncoderCandidate(choice: hardware, device: $0) }
            }
            return found + [x264]
        case .vaapi, .qsv, .v4l2m2m, .nvenc:
            guard let device = devices.device(for: choice) else {
                throw .notSupported(
                    device: choice.encoderName ?? choice.rawValue,
                    reason: "\(HardwareEncoderDevices.missing(choice)); \(.encoder, "x264") encodes in software")
            }
            return [EncoderCandidate(choice: choice, device: device)]
        }
    }
}
