import Testing

@testable import CaptureCore

/// The encoder budget's choice from measured speeds: the slowest preset that keeps 1.2x real
/// time, an asked preset kept, the camera's largest mode that would keep up when none does, and
/// the line the user reads.
@Suite struct PresetBudgetTests {
    static let fullHD = PresetBudget.Mode(width: 1920, height: 1080, rate: Rational(30, 1))

    /// A machine where each preset encodes this many frames per second at `fullHD`.
    static func machine(_ fps: [String: Double]) -> (String) throws(CaptureError) -> Double {
        { preset in fps[preset] ?? 0 }
    }

    @Test func theDefaultStaysWhenItKeepsUp() throws {
        var tried: [String] = []
        let budget = try PresetBudget.settle(Self.fullHD, asked: nil, offered: []) { (preset) throws(CaptureError) in
            tried.append(preset)
            return 60
        }
        #expect(tried == ["veryfast"])
        #expect(budget.preset == "veryfast" && budget.chosen && budget.keepsUp && !budget.isNews)
        #expect(budget.measured == [.init(preset: "veryfast", speed: 2)])
        #expect(budget.line == "1920x1080 at 30 fps: veryfast keeps 2.00x here")
    }

    @Test func theSlowestPresetThatKeepsUpIsChosen() throws {
        let budget = try PresetBudget.settle(
            Self.fullHD, asked: nil, offered: [],
            measure: Self.machine(["veryfast": 24, "superfast": 36, "ultrafast": 60]))
        #expect(budget.preset == "superfast" && budget.keepsUp && budget.isNews)
        #expect(budget.line == "1920x1080 at 30 fps: veryfast keeps 0.80x, superfast keeps 1.20x here, using superfast")
    }

    @Test func whenNothingKeepsUpTheLargestModeThatWouldIsNamed() throws {
        let offered = [
            PresetBudget.Mode(width: 1920, height: 1080, rate: Rational(30, 1)),
            PresetBudget.Mode(width: 1920, height: 1080, rate: Rational(15, 1)),
            PresetBudget.Mode(width: 1280, height: 720, rate: Rational(30, 1)),
            PresetBudget.Mode(width: 640, height: 480, rate: Rational(30, 1)),
        ]
        // ultrafast at 0.9x: 1080p at 15 fps would be 1.8x, 720p at 30 fps 2.0x; the larger wins.
        let budget = try PresetBudget.settle(
            Self.fullHD, asked: nil, offered: offered,
            measure: Self.machine(["veryfast": 9, "superfast": 15, "ultrafast": 27]))
        #expect(budget.preset == "ultrafast" && !budget.keepsUp)
        #expect(budget.suggestedMode == "1920x1080 at 15 fps")
        // veryfast at 0.3x: superfast would need 4x that, and is not timed.
        #expect(
            budget.line
                == "1920x1080 at 30 fps: veryfast keeps 0.30x, ultrafast keeps 0.90x here, "
                + "using ultrafast; frames will be dropped: 1920x1080 at 15 fps would keep up")
    }

    /// superfast is timed only when it could close the gap, at most half as fast again as veryfast:
    /// 1.2x real time at 30 fps is 36 frames a second, within reach of 24 but not of 23.
    @Test(arguments: [(23.0, ["veryfast", "ultrafast"]), (24.0, ["veryfast", "superfast", "ultrafast"])])
    func superfastIsTimedOnlyWithinReach(veryfast: Double, tried expected: [String]) throws {
        var tried: [String] = []
        let speeds = ["veryfast": veryfast, "superfast": 30, "ultrafast": 60]
        let budget = try PresetBudget.settle(Self.fullHD, asked: nil, offered: []) {
            (preset) throws(CaptureError) in
            tried.append(preset)
            return speeds[preset] ?? 0
        }
        #expect(tried == expected)
        #expect(budget.preset == "ultrafast" && budget.keepsUp)
    }

    @Test func anAskedPresetIsKeptAndOnlyMeasured() throws {
        var tried: [String] = []
        let budget = try PresetBudget.settle(Self.fullHD, asked: "medium", offered: []) {
            (preset) throws(CaptureError) in
            tried.append(preset)
            return 15
        }
        #expect(tried == ["medium"])
        #expect(budget.preset == "medium" && !budget.chosen && !budget.keepsUp && budget.suggestedMode == nil)
        #expect(budget.line == "1920x1080 at 30 fps: medium keeps 0.50x here; frames will be dropped")
    }

    @Test func camerasThatShareTheCoresEachNeedTheirShare() throws {
        // Two cameras: each needs 2.4x alone; veryfast's 2.0x no longer does.
        let budget = try PresetBudget.settle(
            Self.fullHD, asked: nil, offered: [], sharing: 2,
            measure: Self.machine(["veryfast": 60, "superfast": 90, "ultrafast": 150]))
        #expect(budget.preset == "superfast" && budget.keepsUp && budget.sharing == 2)
        #expect(
            budget.line
                == "1920x1080 at 30 fps: veryfast keeps 2.00x, superfast keeps 3.00x here (2 cameras share the cores: "
                + "each needs 2.40x), using superfast")
    }

    @Test func aSpeedAboveRealTimeButBelowTheMarginMayDrop() throws {
        let budget = try PresetBudget.settle(Self.fullHD, asked: "ultrafast", offered: []) { (_) throws(CaptureError) in
            33
        }
        #expect(
            !budget.keepsUp && budget.line == "1920x1080 at 30 fps: ultrafast keeps 1.10x here; frames may be dropped")
    }

    @Test func aMeasurementThatFailsEndsTheBudget() {
        #expect(throws: CaptureError.self) {
            try PresetBudget.settle(Self.fullHD, asked: nil, offered: []) { (_) throws(CaptureError) in
                throw .failed("x264 did not open")
            }
        }
    }

    @Test func theCamerasModesAreItsSizesAtEachRate() {
        let probe = CameraProbe(
            path: "/dev/video0", driver: "uvcvideo", card: "Cam", busInfo: "usb-1", capabilities: [],
            multiplanar: false, input: nil, inputs: [],
            formats: [
                CameraFormat(
                    fourcc: "MJPG", code: 0, description: "Motion-JPEG", ffmpegName: "mjpeg", compressed: true,
                    emulated: false, bufferType: "video-capture",
                    frameSizes: [
                        .discrete(
                            1280, 720, FrameIntervals(type: .discrete, discrete: [Rational(1, 30), Rational(1, 15)]))
                    ])
            ], current: nil, controls: [])
        let modes = Set(PresetBudget.modes(of: probe))
        #expect(
            modes == [
                PresetBudget.Mode(width: 1280, height: 720, rate: Rational(30, 1)),
                PresetBudget.Mode(width: 1280, height: 720, rate: Rational(15, 1)),
            ])
    }
}
