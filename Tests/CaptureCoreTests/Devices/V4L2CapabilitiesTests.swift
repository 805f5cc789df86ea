import Testing

@testable import CaptureCore

/// The role classification over the `device_caps` values vivid (Linux 6.1) really reports for
/// each node type (`node_types=0xe1d3d`, plus a `multiplanar=2` instance).
@Suite struct V4L2CapabilitiesTests {
    @Test(arguments: [
        (UInt32(0x0523_0005), "camera"),  // vid-cap: Video Capture, Overlay, Tuner, Audio
        (0x0523_1000, "camera"),  // vid-cap of a multiplanar instance
        (0x0522_0002, "video-output"),  // vid-out
        (0x05a3_0000, "metadata-capture"),  // meta-cap
        (0x0d22_0000, "metadata-output"),  // meta-out
        (0x1520_0001, "touch"),  // touch-cap: Video Capture together with Touch
        (0x0125_0500, "radio"),  // rad-rx
        (0x0028_0800, "radio"),  // rad-tx: RDS Output and Modulator, no Radio bit
        (0x0531_0000, "sdr"),  // sdr-cap
        (0x0523_0050, "vbi-capture"),  // vbi-cap
        (0x0522_00a0, "vbi-output"),  // vbi-out
        (0x8420_4000, "other"),  // a memory-to-memory codec
    ])
    func roleFromDeviceCaps(deviceCaps: UInt32, role: String) {
        // vivid's `capabilities` (the whole device) has every bit, so only device_caps can decide.
        let caps = V4L2Capabilities.nodeCapabilities(capabilities: 0x9dbf_0df7, deviceCaps: deviceCaps)
        #expect(caps.role == role)
    }

    @Test func capabilitiesDecideWhenDeviceCapsAreMissing() {
        // An old driver: no V4L2_CAP_DEVICE_CAPS, device_caps left 0.
        let caps = V4L2Capabilities.nodeCapabilities(capabilities: 0x0500_0001, deviceCaps: 0)
        #expect(caps.role == "camera")
        #expect(V4L2Capabilities.nodeCapabilities(capabilities: 0x0500_0010, deviceCaps: 0).role == "vbi-capture")
    }

    @Test func namesAsV4L2CtlPrintsThem() {
        #expect(
            V4L2Capabilities(rawValue: 0x0523_0005).names == [
                "Video Capture", "Video Overlay", "Tuner", "Audio", "Read/Write", "Streaming", "Extended Pix Format",
            ])
        #expect(
            V4L2Capabilities(rawValue: 0x9dbf_0df7).names == [
                "Video Capture", "Video Output", "Video Overlay", "VBI Capture", "VBI Output", "Sliced VBI Capture",
                "Sliced VBI Output", "RDS Capture", "RDS Output", "SDR Capture", "Metadata Capture", "Metadata Output",
                "Tuner", "Touch Device", "Modulator", "Audio", "Radio", "Read/Write", "Streaming",
                "Extended Pix Format", "Device Capabilities",
            ])
        #expect(V4L2Capabilities(rawValue: 0x0523_1000).names.first == "Video Capture Multiplanar")
    }

    @Test func fourccs() {
        #expect(CameraProber.fourcc(0x5659_5559) == "YUYV")
        #expect(CameraProber.fourcc(0x2036_3159) == "Y16 ")
        #expect(CameraProber.fourcc(0x2036_3159 | 1 << 31) == "Y16 -BE")
    }

    @Test(arguments: [
        ("White Balance, Automatic", "white_balance_automatic"),
        ("Integer 32 Bits", "integer_32_bits"),
        ("U8 2x3x4x5 Array", "u8_2x3x4x5_array"),
        ("  Power Line Frequency ", "power_line_frequency"),
    ])
    func controlNamesAsV4L2CtlMakesThem(label: String, name: String) {
        #expect(V4L2Controls.variableName(label) == name)
    }

    @Test func nodeOrderIsByKindThenNumber() {
        let sorted = ["video10", "radio0", "video2", "vbi0", "video0"].sorted(by: V4L2Discovery.nodeOrder)
        #expect(sorted == ["video0", "video2", "video10", "radio0", "vbi0"])
    }
}
