import Testing

@testable import CaptureCore

/// A copy the container refuses suggests only what that container, or another, really takes.
@Suite struct CopyRefusalTests {
    func container(_ ext: String) throws -> ContainerFormat {
        try ContainerFormat.forPath("out.\(ext)")
    }

    @Test func mjpegIntoY4MSuggestsRawOrAContainerThatHoldsIt() throws {
        let y4m = try container("y4m")
        let instead = CodecChoice.copyAlternatives(codec: "mjpeg", in: y4m)
        #expect(instead.working == ["raw"])
        for ext in [".mkv", ".mp4", ".nut", ".avi"] { #expect(instead.others.contains(ext)) }
        #expect(!instead.others.contains(".y4m"))
        let message = RecordingPlanError.copyNotInContainer(
            fileExtension: "y4m", codec: "mjpeg", source: "the camera's", working: instead.working,
            others: instead.others
        ).message.description
        #expect(
            message.hasPrefix(
                ".y4m files cannot hold the camera's mjpeg packets; use the video codec raw, or copy them to "))
        #expect(!message.contains("h264"))
    }

    @Test func rawIntoH264AndMP4SuggestsH264() throws {
        for ext in ["h264", "mp4"] {
            let instead = CodecChoice.copyAlternatives(codec: "rawvideo", in: try container(ext))
            #expect(instead.working == ["h264"], "\(ext)")
            #expect(instead.others.contains(".nut"))
        }
    }

    @Test func theTestSourceIsNotCalledACamera() {
        let message = RecordingPlanError.copyNotInContainer(
            fileExtension: "y4m", codec: "h264", source: "the test source's", working: ["raw"], others: ".mkv"
        ).message.description
        #expect(
            message
                == ".y4m files cannot hold the test source's h264 packets; use the video codec raw, or copy them to .mkv"
        )
    }
}
