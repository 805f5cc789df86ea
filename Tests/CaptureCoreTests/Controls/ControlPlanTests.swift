import Foundation
import Testing

@testable import CaptureCore

/// Value parsing and write order of `ControlPlan`, over control lists drivers reported.
@Suite struct ControlPlanTests {
    let vivid = ControlFixtures.vivid
    let device = "/dev/video10"

    func plan(_ settings: [String], _ controls: [CameraControl]? = nil) throws(CaptureError) -> ControlPlan {
        try ControlPlan.make(settings.map { ControlSetting(parsing: $0)! }, controls: controls ?? vivid, device: device)
    }

    func refusal(_ settings: [String], _ controls: [CameraControl]? = nil) -> CaptureError? {
        do {
            _ = try plan(settings, controls)
            return nil
        } catch {
            return error
        }
    }

    func values(_ plan: ControlPlan) -> [String] { plan.writes.map { "\($0.name)=\($0.value)" } }

    @Test func namesMatchWithoutRegardToCaseOrPunctuation() throws {
        #expect(
            values(try plan(["Brightness=1", "GAIN_AUTOMATIC=0", "Horizontal Flip=1"])).sorted() == [
                "brightness=1", "gain_automatic=0", "horizontal_flip=1",
            ])
    }

    @Test(arguments: [
        ("mute", "on", ControlValue.integer(1)), ("mute", "OFF", .integer(0)), ("mute", "true", .integer(1)),
        ("mute", "0", .integer(0)), ("brightness", "0x10", .integer(16)), ("hue", "-128", .integer(-128)),
        ("menu", "Menu Item 4", .integer(4)), ("menu", "menu item 1", .integer(1)), ("menu", "3", .integer(3)),
        ("integer_menu", "8", .integer(8)), ("integer_64_bits", "-9223372036854775808", .integer(Int64.min)),
        ("bitmask", "0x80402010", .integer(0x8040_2010)), ("string", "abc", .string("abc")),
        ("button", "", .integer(1)),
    ])
    func parsesEachType(name: String, text: String, expected: ControlValue) throws {
        #expect(try plan(["\(name)=\(text)"]).writes.map(\.value) == [expected])
    }

    @Test(arguments: [
        ("brightness=256", "brightness=256 is out of range; brightness takes 0 to 255"),
        ("hue=-129", "hue=-129 is out of range; hue takes -128 to 128"),
        ("brightness=bright", "brightness=bright is not a whole number"),
        ("mute=maybe", "mute=maybe is not a boolean; mute takes 0/1, true/false or on/off"),
        (
            "menu=2",
            "menu=2 is not one of the menu's entries; menu takes 1 (Menu Item 1), 3 (Menu Item 3), 4 (Menu Item 4)"
        ),
        ("menu=Menu Item 9", "menu=Menu Item 9 is not one of the menu's entries"),
        ("integer_menu=1", "integer_menu=1 is not one of the menu's entries; integer_menu takes 2 (2), 3 (3), 4 (5)"),
        ("bitmask=0x1", "bitmask=0x1 sets bits outside the mask; bitmask takes a bit mask within 0x80402010"),
        ("string=a", "string=a has 1 characters; string takes text of 2 to 4 characters"),
        ("string=abcde", "string=abcde has 5 characters"),
        ("read_only_integer_32_bits=1", "read_only_integer_32_bits is read-only"),
        ("u8_pixel_array=1", "u8_pixel_array is a u8 array or compound control"),
        ("area=1", "area is a area array or compound control"),
        ("gain=10", "gain is inactive while gain_automatic is 1 (the camera sets it itself); add gain_automatic=0"),
    ])
    func refusesWithTheControlAndWhatItTakes(setting: String, message: String) {
        let error = refusal(["contrast=1", setting])
        #expect(error?.exitCode == 69)
        #expect("\(error.map { "\($0)" } ?? "")".contains(message), "\(String(describing: error))")
    }

    @Test func stepIsChecked() {
        // focus_absolute takes steps of 5 from 0.
        let uvc = ControlFixtures.uvcWebcam
        let error = refusal(["focus_automatic_continuous=0", "focus_absolute=12"], uvc)
        #expect(error?.exitCode == 69)
        #expect(
            "\(error!)".contains(
                "focus_absolute=12 is not on the control's step; focus_absolute takes 0 to 250 in steps of 5 (nearest: 10 or 15)"
            ))
        #expect(refusal(["focus_automatic_continuous=0", "focus_absolute=15"], uvc) == nil)
    }

    @Test func unknownNameIsAUsageErrorWithTheNearestName() {
        let error = refusal(["brigthness=3"])
        #expect(error?.exitCode == 64)
        #expect("\(error!)".contains("/dev/video10 has no control 'brigthness'; did you mean 'brightness'?"))
        #expect("\(error!)".contains("; its controls: brightness, contrast, saturation"))
        #expect(!"\(refusal(["zzzzzzzzzz=1"])!)".contains("did you mean"))
    }

    @Test func automaticModeGoesBeforeTheGainItGates() throws {
        // The user's order puts gain first; gain_automatic=0 must reach the driver first or
        // the gain is ignored.
        let result = try plan(["gain=200", "gain_automatic=0"])
        #expect(result.batches.map { $0.map(\.name) } == [["gain_automatic"], ["gain"]])
        #expect(result.writes.map(\.value) == [.integer(0), .integer(200)])
        #expect(result.writes.first?.previous == .integer(1))
    }

    @Test func exposureAndWhiteBalanceOrderOnAUVCCamera() throws {
        let uvc = ControlFixtures.uvcWebcam
        let result = try plan(
            [
                "exposure_time_absolute=100", "white_balance_temperature=5000", "brightness=10",
                "auto_exposure=Manual Mode", "white_balance_automatic=off",
            ], uvc)
        // Automatic modes first (one batch per class), then the manual values and the rest.
        #expect(
            result.batches.map { $0.map(\.name) } == [
                ["white_balance_automatic"], ["auto_exposure"], ["brightness", "white_balance_temperature"],
                ["exposure_time_absolute"],
            ])
        // In aperture priority the camera sets the exposure time itself.
        let error = refusal(["exposure_time_absolute=100"], uvc)
        #expect("\(error!)".contains("exposure_time_absolute is inactive while auto_exposure is 3"))
        #expect("\(error!)".contains("add auto_exposure=1"))
    }

    @Test func aLaterSetIsCheckedAgainstWhatAnEarlierOneLeaves() throws {
        let profile = try ControlPlan.make(
            [ControlSetting(name: "gain_automatic", value: "0")], controls: vivid, device: device,
            source: .profile(ignoreUnknown: false))
        #expect(refusal(["gain=10"]) != nil)
        let later = try plan(["gain=10"], profile.expectedControls(from: vivid))
        #expect(values(later) == ["gain=10"])
    }

    @Test func aLaterValueOfTheSameControlWins() throws {
        #expect(values(try plan(["brightness=1", "Brightness=2"])) == ["brightness=2"])
    }

    @Test func resetWritesDefaultsAndLeavesTheAutomaticGainAlone() throws {
        let result = try ControlPlan.reset(controls: vivid, device: device)
        let byName = Dictionary(result.writes.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["brightness"] == .integer(128))
        #expect(byName["menu"] == .integer(3))
        #expect(byName["string"] == .string("  "))
        #expect(byName["gain_automatic"] == .integer(1))
        #expect(byName["gain"] == nil)
        #expect(result.skipped == ["gain"])
        #expect(byName["read_only_integer_32_bits"] == nil)
        #expect(byName["button"] == nil && byName["disconnect"] == nil)
        #expect(byName["u8_pixel_array"] == nil)
    }

    @Test func profileRoundTripsEverySavableValue() throws {
        let identity = CameraIdentity(path: device, driver: "vivid", card: "vivid", busInfo: "platform:vivid-000")
        let profile = ControlProfile(identity: identity, controls: vivid)
        #expect(!profile.controls.contains { $0.name == "gain" })  // volatile while automatic
        #expect(profile.controls.contains { $0.name == "string" && $0.value == .string("  ") })
        let decoded = try JSONDecoderForTests.decode(ControlProfile.self, from: profile.encoded())
        #expect(decoded == profile)
        let reloaded = try ControlPlan.make(
            decoded.settings, controls: vivid, device: device, source: .profile(ignoreUnknown: false))
        #expect(reloaded.writes.count == profile.controls.count)
        let other = CameraIdentity(path: device, driver: "uvcvideo", card: "Webcam C270", busInfo: "usb-1")
        #expect(!identity.sameModel(as: other))
        #expect(
            identity.sameModel(as: CameraIdentity(path: "/dev/video3", driver: "vivid", card: "vivid", busInfo: "x")))
    }

    @Test func profileOfAnotherModelRefusesUnknownNamesUnlessForced() throws {
        let settings = [
            ControlSetting(name: "zoom_absolute", value: "3"), ControlSetting(name: "contrast", value: "5"),
        ]
        #expect(throws: CaptureError.self) {
            try ControlPlan.make(settings, controls: vivid, device: device, source: .profile(ignoreUnknown: false))
        }
        let forced = try ControlPlan.make(
            settings, controls: vivid, device: device, source: .profile(ignoreUnknown: true))
        #expect(forced.writes.map(\.name) == ["contrast"])
    }

    @Test func readBackReportsWhatTheDriverChanged() throws {
        let written = try plan(["gain_automatic=0", "gain=200", "brightness=20", "button=1"])
        // The driver as it might answer: brightness rounded to its own step, gain as asked.
        let after = vivid.map { control -> CameraControl in
            var control = control
            switch control.name {
            case "gain_automatic": control.value = 0
            case "gain": control.value = 200
            case "brightness": control.value = 16
            default: break
            }
            return control
        }
        let report = ControlReport(plan: written, after: after)
        #expect(report.changed.map(\.name) == ["brightness"])
        #expect(report.changed.first?.value == .integer(16))
        #expect(report.changed.first?.requested == .integer(20))
        #expect(report.changed.first?.previous == .integer(128))
        // A button has nothing to read back.
        #expect(report.controls.first { $0.name == "button" }?.changedByDriver == false)
    }

    @Test func settingShape() {
        #expect(ControlSetting(parsing: "a=b=c") == ControlSetting(name: "a", value: "b=c"))
        #expect(ControlSetting(parsing: "brightness=") == ControlSetting(name: "brightness", value: ""))
        #expect(ControlSetting(parsing: "brightness") == nil)
        #expect(ControlSetting(parsing: "=3") == nil)
    }
}

enum JSONDecoderForTests {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: data)
    }
}
