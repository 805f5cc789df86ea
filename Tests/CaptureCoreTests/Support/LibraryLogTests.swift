import Testing

@testable import CaptureCore

@Suite struct LibraryLogTests {
    @Test(arguments: [
        ("[lavfi @ 0x5637a1b2c3d0] No such filter: 'x'", "No such filter: 'x'"),
        ("[Parsed_testsrc2_0 @ 0x55d0] [graph 0 @ 0x55d1] Invalid size", "Invalid size"),
        ("[video4linux2,v4l2 @ 0x1] ioctl(VIDIOC_STREAMON): No such device", "ioctl(VIDIOC_STREAMON): No such device"),
        ("ALSA: snd_pcm_open: cannot open", "ALSA: snd_pcm_open: cannot open"),
        ("[not a context] stays", "[not a context] stays"),
    ])
    func errorLinesLoseFFmpegsContextPrefix(line: String, expected: String) {
        #expect(LibraryLog.withoutContext(line) == expected)
    }

    @Test func foldedLinesLoseTrailingNewlines() {
        let log = LibraryLog.shared
        _ = log.takeLastError()
        log.record(level: 16, line: "ALSA: pulse_connect: Connection refused\n\n")
        #expect(log.takeLastError() == "ALSA: pulse_connect: Connection refused")
    }
}
