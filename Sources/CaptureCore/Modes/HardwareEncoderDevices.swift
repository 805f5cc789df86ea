internal import CShim
import FoundationEssentials
import Glibc

/// The devices FFmpeg's hardware H.264 encoders run on, as this machine has them: DRM render
/// nodes (`/dev/dri/renderD*`: VAAPI and Quick Sync), V4L2 memory-to-memory nodes whose capture
/// side gives H.264 (a stateful encoder, such as a Raspberry Pi's), and NVIDIA's device node.
///
/// Found by listing `/dev` and asking V4L2 nodes what they are (`VIDIOC_QUERYCAP`,
/// `VIDIOC_ENUM_FMT`); nothing is opened for encoding. A value: scanned once per recording.
struct HardwareEncoderDevices: Sendable, Equatable {
    var renderNodes: [String] = []
    var m2mEncoders: [String] = []
    var nvidia: String?

    /// What this machine has under `root` (`/dev`).
    static func scan(root: String = "/dev") -> HardwareEncoderDevices {
        var found = HardwareEncoderDevices()
        let dri = root.pathAppending("dri")
        found.renderNodes = ((try? FileManager.default.contentsOfDirectory(atPath: dri)) ?? [])
            .filter { $0.hasPrefix("renderD") }.sorted().map { dri.pathAppending($0) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        found.m2mEncoders = names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .map { root.pathAppending($0) }.filter(isH264Encoder)
        found.nvidia = ["nvidia0", "nvidiactl"].map { root.pathAppending($0) }.first { access($0, F_OK) == 0 }
        return found
    }

    /// The device `choice` runs on here; nil when there is none (or for x264 and auto).
    func device(for choice: VideoEncoderChoice) -> String? {
        switch choice {
        case .vaapi, .qsv: renderNodes.first
        case .v4l2m2m: m2mEncoders.first
        case .nvenc: nvidia
        case .auto, .x264: nil
        }
    }

    /// What `choice` needs that is missing, in words, with what provides it.
    static func missing(_ choice: VideoEncoderChoice) -> String {
        switch choice {
        case .vaapi:
            "no DRM render node (/dev/dri/renderD*): VA-API needs a GPU with its kernel driver and a VA-API "
                + "driver (intel-media-va-driver, mesa-va-drivers)"
        case .qsv:
            "no DRM render node (/dev/dri/renderD*): Quick Sync needs an Intel GPU with i915 and the oneVPL or "
                + "Media SDK runtime"
        case .v4l2m2m: "no V4L2 memory-to-memory node that encodes H.264 (/dev/video*, such as a Raspberry Pi's)"
        case .nvenc: "no NVIDIA device (/dev/nvidia0): NVENC needs an NVIDIA GPU with its proprietary driver"
        case .auto, .x264: ""
        }
    }

    /// True for a V4L2 memory-to-memory node whose capture side (what it hands back) lists H.264.
    private static func isH264Encoder(_ path: String) -> Bool {
        guard let handle = try? V4L2Handle(path: path), let caps = try? handle.queryCapabilities() else { return false }
        let node = V4L2Capabilities.nodeCapabilities(capabilities: caps.capabilities, deviceCaps: caps.device_caps)
        let type: UInt32
        if node.contains(.videoM2M) {
            type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        } else if node.contains(.videoM2MMultiplanar) {
            type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        } else {
            return false
        }
        let formats = (try? CameraProber.enumerateFormats(handle, bufferType: type, typeName: "")) ?? []
        return formats.contains { $0.fourcc == "H264" }
    }
}
