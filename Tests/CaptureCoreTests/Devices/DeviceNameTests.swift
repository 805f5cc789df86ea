import Testing

@testable import CaptureCore

@Suite struct DeviceNameTests {
    @Test(arguments: [
        ("/dev/video0", DeviceName.v4l2(path: "/dev/video0")),
        ("/dev/v4l/by-id/usb-Cam-video-index0", .v4l2(path: "/dev/v4l/by-id/usb-Cam-video-index0")),
        ("v4l2:/dev/video2", .v4l2(path: "/dev/video2")),
        ("hw:CARD=PCH,DEV=0", .alsa(pcm: "hw:CARD=PCH,DEV=0")),
        ("hw:1,0", .alsa(pcm: "hw:1,0")),
        ("plughw:1,0", .alsa(pcm: "plughw:1,0")),
        ("default", .alsa(pcm: "default")),
        ("alsa:test", .alsa(pcm: "test")),
        ("pulse:", .pulse(source: nil)),
        ("pulse:alsa_input.usb-1.analog-stereo", .pulse(source: "alsa_input.usb-1.analog-stereo")),
        ("test", .test),
        ("lavfi:testsrc2=size=1280x720", .lavfi(graph: "testsrc2=size=1280x720")),
        ("0", .index(0)),
        ("12", .index(12)),
        ("Mikrofon «Küche»", .alsa(pcm: "Mikrofon «Küche»")),
    ])
    func parses(text: String, expected: DeviceName) throws {
        #expect(try DeviceName(parsing: text) == expected)
    }

    @Test(arguments: ["hw:1,0", "/dev/video0", "pulse:", "pulse:x", "test", "lavfi:sine", "3", "alsa:test", "v4l2:rel"])
    func descriptionReadsBack(text: String) throws {
        let name = try DeviceName(parsing: text)
        #expect(try DeviceName(parsing: name.description) == name)
    }

    @Test(arguments: ["", "v4l2:", "alsa:", "lavfi:"])
    func rejectsEmpty(text: String) {
        #expect(throws: CaptureError.self) { try DeviceName(parsing: text) }
    }

    @Test func pulseStyleNamesGivenAsALSAAreRecognized() throws {
        #expect(try DeviceName(parsing: "alsa_input.pci-0000_00_1f.3.analog-stereo").looksLikePulseSource)
        #expect(try DeviceName(parsing: "alsa_output.pci-0000_00_1f.3.analog-stereo.monitor").looksLikePulseSource)
        #expect(try !DeviceName(parsing: "hw:0,0").looksLikePulseSource)
    }
}
