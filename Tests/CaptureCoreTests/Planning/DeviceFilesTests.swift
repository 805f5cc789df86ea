import Testing

@testable import CaptureCore

/// A file name with a device field makes one file per device: `%d` (not in a segment template,
/// where strftime reads it as the day), `%{index}`, `%{name}`.
@Suite struct DeviceFilesTests {
    @Test(arguments: [
        ("cam%d.mp4", false, true), ("cam%d.mp4", true, false), ("cam%{index}.mkv", true, true),
        ("%{name}.mkv", false, true), ("cam.mp4", false, false), ("cam%%d.mp4", false, false),
        ("a%d/cam.mp4", false, false),
    ])
    func whatMakesAFilePerDevice(pattern: String, segments: Bool, perDevice: Bool) {
        #expect(DeviceFiles.isTemplate(pattern, segments: segments) == perDevice)
    }

    @Test func fieldsAreFilledPerDevice() {
        #expect(DeviceFiles.path("out/cam%d.mp4", index: 2, name: "x", segments: false) == "out/cam2.mp4")
        #expect(DeviceFiles.path("%{name}-%{index}%%.mkv", index: 1, name: "C920", segments: false) == "C920-1%.mkv")
        // In a segment template, strftime's fields and %% stay for the template.
        #expect(
            DeviceFiles.path("cam%{index}-%Y%m%d-%n%%.mkv", index: 0, name: "x", segments: true)
                == "cam0-%Y%m%d-%n%%.mkv")
        // A name can neither make a folder nor a field, nor hide the file.
        #expect(DeviceFiles.path("%{name}.mkv", index: 0, name: ".a/b%n", segments: true) == "_a_b_n.mkv")
    }

    @Test func twoDevicesOfOneNameNeedTheirNumber() throws {
        #expect(throws: CaptureError.self) {
            try DeviceFiles.paths("%{name}.mkv", names: ["C920", "C920"], segments: false)
        }
        #expect(
            try DeviceFiles.paths("%{name}-%d.mkv", names: ["C920", "C920"], segments: false) == [
                "C920-0.mkv", "C920-1.mkv",
            ])
    }
}

/// A `%{...}` that is no field is refused rather than written as a literal name; so is, in the
/// name of one file, any `%` but `%d` and `%%` (ffmpeg's `%02d` among them). Series templates
/// (segments, clips) check their own strftime fields.
@Suite struct DeviceFieldTyposTests {
    @Test(arguments: ["x%{foo}.mkv", "x%{index.mkv", "x%{Name}.mkv", "u%02d.mkv", "q-%q-%d.mkv", "s-%5d.mkv"])
    func typosAreRefused(pattern: String) {
        #expect(throws: CaptureError.self) { try DeviceFiles.checkFields(pattern, timed: false) }
    }

    @Test(arguments: ["x%{index}.mkv", "%{name}-%d.mkv", "x%%{foo}.mkv", "a%{b/x.mkv", "plain.mkv", "50%%.mkv"])
    func fieldsAndLiteralsPass(pattern: String) throws {
        try DeviceFiles.checkFields(pattern, timed: false)
    }

    @Test func twoPercentSignsWriteOneInTheNameOfOneFile() throws {
        #expect(try OutputPlan(RecordingRequest(video: .test, output: "dir%%/a%%.mkv")).file == "dir%%/a%.mkv")
        #expect(try OutputPlan(RecordingRequest(video: .test, output: "plain.mkv")).file == "plain.mkv")
    }

    @Test func aSeriesTemplateKeepsItsOwnFields() throws {
        try DeviceFiles.checkFields("cam-%Y%m%d-%H%M%S-%n.mkv", timed: true)
        #expect(throws: CaptureError.self) { try DeviceFiles.checkFields("cam-%{foo}-%n.mkv", timed: true) }
    }

    @Test func aDevicesNameLosesWhatAPathOrAToolWouldMisread() {
        #expect(DeviceFiles.safe("hw:CARD=Loopback,DEV=1") == "hw_CARD=Loopback,DEV=1")
        #expect(DeviceFiles.safe("/dev/video0") == "_dev_video0")
        #expect(DeviceFiles.safe(".hidden%n") == "_hidden_n")
    }
}
