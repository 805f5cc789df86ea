/// Which automatic mode keeps which manual control from taking a value: the camera's own
/// settings loop owns the manual value while the automatic mode is on.
///
/// The kernel groups these as auto clusters, but V4L2 tells a program only the symptoms (the
/// automatic control flagged `update`, the manual one `inactive` and `volatile` while automatic),
/// not which control gates which; the standard pairs are known by their IDs (linux/v4l2-controls.h).
struct AutoGate: Hashable, Sendable {
    /// The automatic mode's control ID.
    var auto: UInt32
    /// The manual control's ID.
    var manual: UInt32
    /// Values of the automatic control under which the manual control takes writes.
    var activeWhen: Set<Int64>
    /// The value to suggest for taking over by hand.
    var manualValue: Int64

    static let known: [AutoGate] = [
        // V4L2_CID_AUTOGAIN -> V4L2_CID_GAIN
        AutoGate(auto: 0x0098_0912, manual: 0x0098_0913, activeWhen: [0], manualValue: 0),
        // V4L2_CID_AUTO_WHITE_BALANCE -> WHITE_BALANCE_TEMPERATURE, RED_BALANCE, BLUE_BALANCE
        AutoGate(auto: 0x0098_090c, manual: 0x0098_091a, activeWhen: [0], manualValue: 0),
        AutoGate(auto: 0x0098_090c, manual: 0x0098_090e, activeWhen: [0], manualValue: 0),
        AutoGate(auto: 0x0098_090c, manual: 0x0098_090f, activeWhen: [0], manualValue: 0),
        // V4L2_CID_HUE_AUTO -> V4L2_CID_HUE
        AutoGate(auto: 0x0098_0919, manual: 0x0098_0903, activeWhen: [0], manualValue: 0),
        // V4L2_CID_AUTOBRIGHTNESS -> V4L2_CID_BRIGHTNESS
        AutoGate(auto: 0x0098_0920, manual: 0x0098_0900, activeWhen: [0], manualValue: 0),
        // V4L2_CID_EXPOSURE_AUTO (0 auto, 1 manual, 2 shutter priority, 3 aperture priority):
        // exposure time is set by hand in manual and shutter priority, the iris in manual and
        // aperture priority. V4L2_CID_EXPOSURE is the older user-class exposure.
        AutoGate(auto: 0x009a_0901, manual: 0x009a_0902, activeWhen: [1, 2], manualValue: 1),
        AutoGate(auto: 0x009a_0901, manual: 0x0098_0911, activeWhen: [1, 2], manualValue: 1),
        AutoGate(auto: 0x009a_0901, manual: 0x009a_0911, activeWhen: [1, 3], manualValue: 1),
        // V4L2_CID_FOCUS_AUTO -> FOCUS_ABSOLUTE, FOCUS_RELATIVE
        AutoGate(auto: 0x009a_090c, manual: 0x009a_090a, activeWhen: [0], manualValue: 0),
        AutoGate(auto: 0x009a_090c, manual: 0x009a_090b, activeWhen: [0], manualValue: 0),
    ]

    /// The gates whose two controls `controls` both has.
    static func gates(in controls: [CameraControl]) -> [AutoGate] {
        let ids = Set(controls.map(\.id))
        return known.filter { ids.contains($0.auto) && ids.contains($0.manual) }
    }

    /// IDs of the automatic modes among `controls`: the known ones, and any control the driver
    /// flags `update` (changing it changes other controls, which is what an auto cluster's
    /// master does).
    static func automaticModes(in controls: [CameraControl]) -> Set<UInt32> {
        var ids = Set(known.map(\.auto)).intersection(controls.map(\.id))
        for control in controls where control.flags.contains("update") { ids.insert(control.id) }
        return ids
    }
}
