import FoundationEssentials
import Glibc

/// The capability bits of VIDIOC_QUERYCAP (`V4L2_CAP_*` in linux/videodev2.h), and what they say
/// about the role of a node.
///
/// The values are the kernel's ABI, written out so the classification is a pure function that
/// tests can feed with any bit set.
public struct V4L2Capabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let videoCapture = V4L2Capabilities(rawValue: 0x0000_0001)
    public static let videoOutput = V4L2Capabilities(rawValue: 0x0000_0002)
    public static let videoOverlay = V4L2Capabilities(rawValue: 0x0000_0004)
    public static let vbiCapture = V4L2Capabilities(rawValue: 0x0000_0010)
    public static let vbiOutput = V4L2Capabilities(rawValue: 0x0000_0020)
    public static let slicedVBICapture = V4L2Capabilities(rawValue: 0x0000_0040)
    public static let slicedVBIOutput = V4L2Capabilities(rawValue: 0x0000_0080)
    public static let rdsCapture = V4L2Capabilities(rawValue: 0x0000_0100)
    public static let videoOutputOverlay = V4L2Capabilities(rawValue: 0x0000_0200)
    public static let hwFrequencySeek = V4L2Capabilities(rawValue: 0x0000_0400)
    public static let rdsOutput = V4L2Capabilities(rawValue: 0x0000_0800)
    public static let videoCaptureMultiplanar = V4L2Capabilities(rawValue: 0x0000_1000)
    public static let videoOutputMultiplanar = V4L2Capabilities(rawValue: 0x0000_2000)
    public static let videoM2MMultiplanar = V4L2Capabilities(rawValue: 0x0000_4000)
    public static let videoM2M = V4L2Capabilities(rawValue: 0x0000_8000)
    public static let tuner = V4L2Capabilities(rawValue: 0x0001_0000)
    public static let audio = V4L2Capabilities(rawValue: 0x0002_0000)
    public static let radio = V4L2Capabilities(rawValue: 0x0004_0000)
    public static let modulator = V4L2Capabilities(rawValue: 0x0008_0000)
    public static let sdrCapture = V4L2Capabilities(rawValue: 0x0010_0000)
    public static let extendedPixFormat = V4L2Capabilities(rawValue: 0x0020_0000)
    public static let sdrOutput = V4L2Capabilities(rawValue: 0x0040_0000)
    public static let metadataCapture = V4L2Capabilities(rawValue: 0x0080_0000)
    public static let readWrite = V4L2Capabilities(rawValue: 0x0100_0000)
    public static let edid = V4L2Capabilities(rawValue: 0x0200_0000)
    public static let streaming = V4L2Capabilities(rawValue: 0x0400_0000)
    public static let metadataOutput = V4L2Capabilities(rawValue: 0x0800_0000)
    public static let touch = V4L2Capabilities(rawValue: 0x1000_0000)
    public static let ioMC = V4L2Capabilities(rawValue: 0x2000_0000)
    public static let deviceCaps = V4L2Capabilities(rawValue: 0x8000_0000)

    /// The names v4l2-ctl prints (`v4l2-ctl -D`), in its order.
    static let names: [(V4L2Capabilities, String)] = [
        (.videoCapture, "Video Capture"),
        (.videoCaptureMultiplanar, "Video Capture Multiplanar"),
        (.videoOutput, "Video Output"),
        (.videoOutputMultiplanar, "Video Output Multiplanar"),
        (.videoM2M, "Video Memory-to-Memory"),
        (.videoM2MMultiplanar, "Video Memory-to-Memory Multiplanar"),
        (.videoOverlay, "Video Overlay"),
        (.videoOutputOverlay, "Video Output Overlay"),
        (.vbiCapture, "VBI Capture"),
        (.vbiOutput, "VBI Output"),
        (.slicedVBICapture, "Sliced VBI Capture"),
        (.slicedVBIOutput, "Sliced VBI Output"),
        (.rdsCapture, "RDS Capture"),
        (.rdsOutput, "RDS Output"),
        (.sdrCapture, "SDR Capture"),
        (.sdrOutput, "SDR Output"),
        (.metadataCapture, "Metadata Capture"),
        (.metadataOutput, "Metadata Output"),
        (.tuner, "Tuner"),
        (.touch, "Touch Device"),
        (.modulator, "Modulator"),
        (.audio, "Audio"),
        (.radio, "Radio"),
        (.ioMC, "I/O MC"),
        (.readWrite, "Read/Write"),
        (.edid, "EDID"),
        (.streaming, "Streaming"),
        (.extendedPixFormat, "Extended Pix Format"),
        (.deviceCaps, "Device Capabilities"),
    ]

    /// The capability names as v4l2-ctl prints them; unknown bits as hex. Like v4l2-ctl, it
    /// leaves HW Frequency Seek out (vivid's whole-device capabilities have it).
    public var names: [String] {
        var result = Self.names.filter { contains($0.0) }.map(\.1)
        let known = Self.names.reduce(V4L2Capabilities.hwFrequencySeek) { $0.union($1.0) }
        let unknown = subtracting(known).rawValue
        if unknown != 0 { result.append(String(cFormat: "0x%08x", unknown)) }
        return result
    }

    /// The role of a node with these device capabilities (`device_caps`), as `capture list` names
    /// it: `camera`, `video-output`, `metadata-capture`, `metadata-output`, `vbi-capture`,
    /// `vbi-output`, `radio`, `sdr`, `touch` or `other`.
    ///
    /// A camera captures video (single- or multiplanar). A touch sensor reports Video Capture
    /// together with Touch, so Touch is checked first.
    public var role: String {
        if contains(.touch) { return "touch" }
        if !isDisjoint(with: [.videoCapture, .videoCaptureMultiplanar]) { return "camera" }
        if !isDisjoint(with: [.videoM2M, .videoM2MMultiplanar]) { return "other" }
        if !isDisjoint(with: [.videoOutput, .videoOutputMultiplanar, .videoOutputOverlay]) { return "video-output" }
        if contains(.metadataCapture) { return "metadata-capture" }
        if contains(.metadataOutput) { return "metadata-output" }
        if !isDisjoint(with: [.vbiCapture, .slicedVBICapture]) { return "vbi-capture" }
        if !isDisjoint(with: [.vbiOutput, .slicedVBIOutput]) { return "vbi-output" }
        if !isDisjoint(with: [.sdrCapture, .sdrOutput]) { return "sdr" }
        // A radio transmitter (vivid's radio-tx) has RDS Output and Modulator but no Radio bit.
        if !isDisjoint(with: [.radio, .rdsCapture, .rdsOutput, .modulator, .tuner]) { return "radio" }
        return "other"
    }

    /// The capabilities that decide a node's role: `device_caps` when the driver fills it
    /// (`V4L2_CAP_DEVICE_CAPS` set in `capabilities`), else `capabilities`, as old drivers
    /// describe only the whole device.
    public static func nodeCapabilities(capabilities: UInt32, deviceCaps: UInt32) -> V4L2Capabilities {
        let all = V4L2Capabilities(rawValue: capabilities)
        return all.contains(.deviceCaps) ? V4L2Capabilities(rawValue: deviceCaps) : all
    }
}

extension V4L2Capabilities {
    /// The role in words for messages: "metadata capture node".
    static func describe(role: String) -> String {
        switch role {
        case "camera": "video capture node"
        case "video-output": "video output node"
        case "metadata-capture": "metadata capture node"
        case "metadata-output": "metadata output node"
        case "vbi-capture": "VBI capture node"
        case "vbi-output": "VBI output node"
        case "radio": "radio node"
        case "sdr": "software defined radio node"
        case "touch": "touch sensor node"
        case "subdev": "sub-device node"
        default: "V4L2 node that is neither capture nor output (e.g. a codec)"
        }
    }
}
