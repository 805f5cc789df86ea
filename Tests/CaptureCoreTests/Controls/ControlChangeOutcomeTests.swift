import Testing

@testable import CaptureCore

/// What the error of a failed control set says holds on the camera (`ControlChange.outcome`),
/// from what the change touched and what the camera read back.
@Suite struct ControlChangeOutcomeTests {
    let brightness = ControlFixtures.control(0x0098_0900, "brightness", "int", 0, 255, 1, 128, 0, "User Controls")
    let contrast = ControlFixtures.control(0x0098_0901, "contrast", "int", 0, 255, 1, 128, 32, "User Controls")

    func write(_ control: CameraControl, _ value: Int64, was previous: Int64?) -> ControlPlan.Write {
        ControlPlan.Write(
            name: control.name, id: control.id, value: .integer(value), previous: previous.map { .integer($0) })
    }

    func reading(_ controls: CameraControl...) -> [UInt32: CameraControl] {
        Dictionary(uniqueKeysWithValues: controls.map { ($0.id, $0) })
    }

    func with(_ control: CameraControl, value: Int64, flags: [String]? = nil) -> CameraControl {
        var changed = control
        changed.value = value
        if let flags { changed.flags = flags }
        return changed
    }

    var set: [ControlPlan.Write] { [write(brightness, 100, was: 0), write(contrast, 50, was: 32)] }

    @Test func aControlPutBackIsNamedWithItsValue() {
        let text = ControlChange.outcome(
            touched: set, putBack: [brightness.id], written: [], mayHaveWritten: [brightness.id, contrast.id],
            now: reading(brightness, contrast))
        #expect(text == "brightness was put back to 0")
    }

    @Test func aControlThatDidNotGoBackSaysWhatItHolds() {
        let text = ControlChange.outcome(
            touched: set, putBack: [brightness.id], written: [], mayHaveWritten: [brightness.id, contrast.id],
            now: reading(with(brightness, value: 100), contrast))
        #expect(text == "brightness holds 100 (it was 0)")
    }

    @Test func nothingChangedIsSaidSo() {
        let text = ControlChange.outcome(
            touched: set, putBack: [], written: [], mayHaveWritten: [brightness.id, contrast.id],
            now: reading(brightness, contrast))
        #expect(text == "nothing was set")
    }

    @Test func severalAreJoinedInTheOrderWritten() {
        let text = ControlChange.outcome(
            touched: set, putBack: [brightness.id], written: [brightness.id], mayHaveWritten: [contrast.id],
            now: reading(brightness, with(contrast, value: 50)))
        #expect(text == "brightness was put back to 0, contrast holds 50 (it was 32)")
    }

    @Test func aControlTheCameraSetsItselfProvesNothing() {
        let gain = ControlFixtures.control(0x0098_0913, "gain", "int", 0, 255, 1, 100, 10, "User Controls")
        let text = ControlChange.outcome(
            touched: [write(gain, 10, was: 23)], putBack: [gain.id], written: [gain.id], mayHaveWritten: [],
            now: reading(with(gain, value: 57, flags: ["inactive", "volatile"])))
        #expect(text == "nothing was set")
    }

    @Test func aWriteOnlyControlThatWentInIsOwnedUpTo() {
        var button = ControlFixtures.control(0x009a_0001, "button", "button", 0, 0, 0, 0, 0, "User Controls")
        button.value = nil
        button.flags = ["write-only"]
        let text = ControlChange.outcome(
            touched: [write(button, 1, was: nil)], putBack: [], written: [button.id], mayHaveWritten: [],
            now: reading(button))
        #expect(text == "button was set to 1 and cannot be read back")
    }
}
