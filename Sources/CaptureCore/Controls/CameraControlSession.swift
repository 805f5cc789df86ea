internal import CShim
import FoundationEssentials
import Glibc

/// A camera's controls, read and written through one open node: `capture controls` and
/// `record`.
///
/// The node is opened for ioctls only (never streamed), so this works while another program
/// streams the camera; V4L2 lets any open handle read and set controls. The handle closes with
/// the session.
public final class CameraControlSession {
    /// The node path.
    public let path: String
    public let identity: CameraIdentity
    /// Every enabled control as last read (VIDIOC_QUERY_EXT_CTRL, QUERYMENU, G_EXT_CTRLS).
    public private(set) var controls: [CameraControl]
    private let handle: V4L2Handle

    /// Opens the camera `device` (a resolved V4L2 camera) and reads its controls.
    ///
    /// Wraps open(2), VIDIOC_QUERYCAP and the control enumeration.
    /// - Throws: `CaptureError.permissionDenied` (77), `.deviceNotFound` (66) for a node that
    ///   went away, `.failed` for other failures.
    public init(device: Device) throws(CaptureError) {
        let path = device.v4l2?.path ?? device.name
        do {
            handle = try V4L2Handle(path: path)
            let caps = try handle.queryCapabilities()
            identity = CameraIdentity.read(
                path: path,
                capability: CapabilityNames(
                    driver: decodeCString(caps.driver), card: decodeCString(caps.card),
                    busInfo: decodeCString(caps.bus_info)))
        } catch {
            if let failure = CaptureError.opening(device, failedWith: error.errno, hint: "it went away") {
                throw failure
            }
            throw .failed("\(path): \(error.call) failed: \(error.message)")
        }
        self.path = path
        controls = V4L2Controls.enumerate(handle)
    }

    /// Reads every control again.
    public func refresh() {
        controls = V4L2Controls.enumerate(handle)
    }

    /// Checks `settings` and writes them in order (`ControlPlan`), then reads every control back.
    ///
    /// - Returns: per control, what was asked, what it was before and what the driver holds now.
    /// - Throws: as `ControlPlan.make` (nothing written then) and `ControlChange.write`.
    public func apply(_ settings: [ControlSetting], source: ControlPlan.Source = .commandLine) throws(CaptureError)
        -> ControlReport
    {
        try apply(ControlPlan.make(settings, controls: controls, device: path, source: source))
    }

    /// Writes a checked plan and reads every control back.
    public func apply(_ plan: ControlPlan) throws(CaptureError) -> ControlReport {
        try apply([plan])[0]
    }

    /// Writes checked plans one after another as one change (`ControlChange`), reading every
    /// control back after each.
    ///
    /// - Returns: one report per plan, made once it was written.
    /// - Throws: the failure of the first write the driver refuses, once every plan written
    ///   before it and the part of the failing one the driver may have applied have been put
    ///   back; its message says what the camera holds then (69, 74, 75 or 1 by the errno).
    public func apply(_ plans: [ControlPlan]) throws(CaptureError) -> [ControlReport] {
        let change = ControlChange(handle: handle, controls: controls)
        var reports: [ControlReport] = []
        for plan in plans {
            do {
                try change.write(plan)
            } catch {
                refresh()
                throw error
            }
            refresh()
            reports.append(ControlReport(plan: plan, after: controls))
        }
        return reports
    }

    /// Puts back the values `report` replaced, in the order of any set: automatic modes first,
    /// then the manual values they gate (left to the camera when its automatic mode comes back
    /// on). Best effort (`ControlChange.restore`): a control the driver refuses does not keep
    /// the others from going back.
    ///
    /// - Returns: one line per control that does not hold its value from before, saying what it
    ///   holds.
    public func restore(_ report: ControlReport) -> [String] {
        let settings = report.controls.compactMap { entry -> ControlSetting? in
            guard let previous = entry.previous else { return nil }
            switch previous {
            case .integer(let number): return ControlSetting(name: entry.name, value: "\(number)")
            case .string(let text): return ControlSetting(name: entry.name, value: text)
            }
        }
        refresh()
        defer { refresh() }
        do {
            let plan = try ControlPlan.make(
                settings, controls: controls, device: path, source: .profile(ignoreUnknown: true))
            return ControlChange.restore(plan, on: handle, controls: controls)
        } catch {
            return ["\(error)"]
        }
    }
}

/// What a set of control writes did: per control the value asked for, the value before, and the
/// value the driver holds afterwards.
///
/// JSON (snake_case keys): `{"controls": [{"name", "requested", "previous", "value", "changed_by_driver"}],
/// "skipped": [names]}`.
public struct ControlReport: Codable, Hashable, Sendable {
    public struct Entry: Codable, Hashable, Sendable {
        public var name: String
        public var requested: ControlValue
        public var previous: ControlValue?
        /// The value read back; nil for a button or a write-only control.
        public var value: ControlValue?
        /// The driver holds another value than asked (clamped, rounded, ignored while inactive).
        public var changedByDriver: Bool
    }

    public var controls: [Entry]
    /// Manual controls not written because their automatic mode stays on.
    public var skipped: [String]

    init(plan: ControlPlan, after: [CameraControl]) {
        controls = plan.writes.map { write in
            let now = after.first { $0.id == write.id }
            let value = now?.currentValue
            let readable = now.map { !$0.flags.contains("write-only") && $0.type != "button" } ?? false
            return Entry(
                name: write.name, requested: write.value, previous: write.previous, value: value,
                changedByDriver: readable && value != write.value)
        }
        skipped = plan.skipped
    }

    public var changed: [Entry] { controls.filter(\.changedByDriver) }

    init(controls: [Entry], skipped: [String]) {
        self.controls = controls
        self.skipped = skipped
    }

    /// This report, then `later`'s: a control written twice keeps its first `previous`.
    func followed(by later: ControlReport) -> ControlReport {
        var merged = controls
        for entry in later.controls {
            if let index = merged.firstIndex(where: { $0.name == entry.name }) {
                let previous = merged[index].previous
                merged[index] = entry
                merged[index].previous = previous
            } else {
                merged.append(entry)
            }
        }
        return ControlReport(controls: merged, skipped: skipped.filter { !merged.map(\.name).contains($0) })
    }
}
