/// The writes a set of controls needs, checked and in the order they must reach the driver.
///
/// A pure decision over the controls a camera reported (`CameraControl`s as VIDIOC_QUERY_EXT_CTRL
/// and G_EXT_CTRLS gave them), so it is tested from recorded lists. Every value is checked
/// against its control's type, range and step before anything is written. Automatic modes are
/// written before the manual values they gate (a manual gain is ignored while autogain is on),
/// whatever order the user gave; within that, writes are batched per control class, one
/// VIDIOC_S_EXT_CTRLS each, in the driver's order.
public struct ControlPlan: Hashable, Sendable {
    /// One control write.
    public struct Write: Hashable, Sendable, Codable {
        /// The control's standard name (`gain_automatic`).
        public var name: String
        public var id: UInt32
        public var value: ControlValue
        /// The value before the write, when it could be read: what a restore puts back.
        public var previous: ControlValue?
    }

    /// Batches in the order they are written; each holds controls of one class.
    public var batches: [[Write]]

    /// Every write, in order.
    public var writes: [Write] { batches.flatMap { $0 } }

    /// Manual controls left alone because their automatic mode stays on (reset, load).
    public var skipped: [String] = []

    /// How names that match no control, and manual values gated off, are treated.
    public enum Source: Sendable {
        /// single settings: an unknown name is a usage error (64) and a gated manual value
        /// is refused (69).
        case commandLine
        /// A saved profile or a restore: unknown names are refused (69) unless `ignoreUnknown`,
        /// and gated manual values are skipped (the camera sets them itself).
        case profile(ignoreUnknown: Bool)
    }

    /// Checks `settings` against `controls` and orders them.
    ///
    /// A name given twice takes its last value.
    /// - Parameters:
    ///   - device: the node path, for messages.
    /// - Throws: `CaptureError.usage` (64) for a name the camera does not have, listing the
    ///   controls and the nearest name; `.notSupported` (69) for a value of the wrong type, out of
    ///   range or off the step, a read-only control, or a manual value whose automatic mode stays
    ///   on, naming the control and what it takes. Nothing has been written when it throws.
    public static func make(
        _ settings: [ControlSetting], controls: [CameraControl], device: String, source: Source = .commandLine
    ) throws(CaptureError) -> ControlPlan {
        var chosen: [UInt32: ControlValue] = [:]
        for setting in settings {
            guard let control = find(setting.name, in: controls) else {
                if case .profile(let ignoreUnknown) = source {
                    if ignoreUnknown { continue }
                    throw .notSupported(
                        device: device,
                        reason: "has no control '\(setting.name)' (the profile is for another model?); "
                            + "nothing was set; \(.force) loads the controls it has")
                }
                throw .usage(OptionText(unknownNameMessage(setting.name, controls: controls, device: device)))
            }
            if control.isReadOnly {
                throw .notSupported(
                    device: device, reason: "\(control.name) is read-only; it cannot be set; nothing was set")
            }
            if !control.isScalar {
                throw .notSupported(
                    device: device,
                    reason:
                        "\(control.name) is a \(control.type) array or compound control, which capture does not set; use v4l2-ctl; nothing was set"
                )
            }
            do throws(ControlValueParser.Rejection) {
                chosen[control.id] = try ControlValueParser.parse(setting.value, for: control)
            } catch {
                throw .notSupported(
                    device: device, reason: "\(control.name)=\(setting.value) \(error.reason); nothing was set")
            }
        }
        var skipped: [String] = []
        let byID = Dictionary(controls.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for gate in AutoGate.gates(in: controls) where chosen[gate.manual] != nil {
            guard let auto = byID[gate.auto], let manual = byID[gate.manual] else { continue }
            let mode: Int64? =
                if case .integer(let planned) = chosen[gate.auto] { planned } else { auto.value }
            guard let mode, !gate.activeWhen.contains(mode) else { continue }
            if case .profile = source {
                chosen[gate.manual] = nil
                skipped.append(manual.name)
                continue
            }
            throw .notSupported(
                device: device,
                reason:
                    "\(manual.name) is inactive while \(auto.name) is \(mode) (the camera sets it itself); "
                    + "add \(auto.name)=\(gate.manualValue) to set it by hand; nothing was set")
        }
        return ControlPlan(ordered: chosen, controls: controls, skipped: skipped)
    }

    /// Every savable control back to its default: reset. Manual values gated by an
    /// automatic mode whose default is on are left to the camera.
    public static func reset(controls: [CameraControl], device: String) throws(CaptureError) -> ControlPlan {
        // A string control has no default to query; the kernel starts one as `minimum` spaces.
        let settings = controls.filter(\.isSavable).map { control in
            ControlSetting(
                name: control.name,
                value: control.type == "str"
                    ? String(repeating: " ", count: Int(max(0, control.minimum))) : "\(control.defaultValue)")
        }
        return try make(settings, controls: controls, device: device, source: .profile(ignoreUnknown: false))
    }

    /// The writes in order: automatic modes first, then the rest; each group split per class
    /// in the driver's order.
    init(ordered chosen: [UInt32: ControlValue], controls: [CameraControl], skipped: [String]) {
        let automatic = AutoGate.automaticModes(in: controls)
        var batches: [[Write]] = []
        for firstPass in [true, false] {
            var byClass: [(UInt32, [Write])] = []
            for control in controls where automatic.contains(control.id) == firstPass {
                guard let value = chosen[control.id] else { continue }
                let write = Write(name: control.name, id: control.id, value: value, previous: control.currentValue)
                if let index = byClass.firstIndex(where: { $0.0 == control.classID }) {
                    byClass[index].1.append(write)
                } else {
                    byClass.append((control.classID, [write]))
                }
            }
            batches += byClass.map(\.1)
        }
        self.batches = batches
        self.skipped = skipped
    }

    /// `controls` as they will read once this plan is written (as far as the plan decides it),
    /// for checking a later set before anything is written.
    public func expectedControls(from controls: [CameraControl]) -> [CameraControl] {
        var expected = controls
        for write in writes {
            guard let index = expected.firstIndex(where: { $0.id == write.id }) else { continue }
            switch write.value {
            case .integer(let number): expected[index].value = number
            case .string(let text): expected[index].stringValue = text
            }
        }
        return expected
    }

    /// The control named `name`: its standard name or its label, ignoring case, `-` and `_`
    /// and spaces alike.
    static func find(_ name: String, in controls: [CameraControl]) -> CameraControl? {
        let key = V4L2Controls.variableName(name)
        return controls.first { $0.name == key } ?? controls.first { V4L2Controls.variableName($0.label) == key }
    }

    static func unknownNameMessage(_ name: String, controls: [CameraControl], device: String) -> String {
        let names = controls.filter(\.isScalar).map(\.name)
        let key = V4L2Controls.variableName(name)
        let nearest = names.min { editDistance(key, $0) < editDistance(key, $1) }
        var message = "\(device) has no control '\(name)'"
        if let nearest, editDistance(key, nearest) <= max(2, key.count / 3) {
            message += "; did you mean '\(nearest)'?"
        }
        return message + "; its controls: " + names.joined(separator: ", ")
    }

    /// Levenshtein distance, for suggesting the nearest control name.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
