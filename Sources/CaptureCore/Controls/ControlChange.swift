internal import CShim
import Glibc

/// Control plans written to one camera one after another as one change: a set, a profile or a
/// reset with a set on top (`capture controls`), a profile and `--control` (`record`).
///
/// Each plan is tried whole first (VIDIOC_TRY_EXT_CTRLS for every batch), then written batch by
/// batch (VIDIOC_S_EXT_CTRLS). When a batch fails, the change is undone: the kernel may have
/// applied part of the failing batch before it failed (an `error_idx` equal to the batch's count
/// says it cannot tell which), so what the change touched is read back, every control that no
/// longer holds its value from before the change is written back to it, last written first (an
/// automatic mode comes back after the manual values it gates), in one batch per batch written
/// and one control at a time where such a batch fails too; then every control of the change is
/// read back again, and the error says what that proved: "brightness was put back to 0", or which
/// controls now hold which value when putting back failed, or "nothing was set".
final class ControlChange {
    private let handle: V4L2Handle
    private let types: [UInt32: CameraControl]
    /// Every control the change touches, in the order first written: the value last asked for
    /// and the value before the change (`previous`).
    private var touched: [ControlPlan.Write] = []
    /// The batches written whole, in order.
    private var written: [[ControlPlan.Write]] = []

    init(handle: V4L2Handle, controls: [CameraControl]) {
        self.handle = handle
        types = Dictionary(controls.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Writes `plan` on top of what the change wrote before.
    ///
    /// - Throws: the batch's failure (`V4L2ControlWriter.failure`: 69 for a value the driver
    ///   refuses, 74 for an I/O error, 75 for a control held while streaming), once the whole
    ///   change has been put back as far as the camera lets it, saying what holds.
    func write(_ plan: ControlPlan) throws(CaptureError) {
        for write in plan.writes {
            if let index = touched.firstIndex(where: { $0.id == write.id }) {
                touched[index].value = write.value
            } else {
                touched.append(write)
            }
        }
        for batch in plan.batches {
            if let (index, error) = V4L2ControlWriter.write(
                batch, on: handle, types: types, request: CShim_VIDIOC_TRY_EXT_CTRLS)
            {
                // A try writes nothing; what earlier plans wrote is put back.
                throw V4L2ControlWriter.failure(
                    error, write: batch[safe: index], batch: batch, path: handle.path,
                    outcome: written.isEmpty ? "nothing was set" : undo(failed: []))
            }
        }
        for batch in plan.batches {
            if let (index, error) = V4L2ControlWriter.write(
                batch, on: handle, types: types, request: CShim_VIDIOC_S_EXT_CTRLS)
            {
                throw V4L2ControlWriter.failure(
                    error, write: batch[safe: index], batch: batch, path: handle.path, outcome: undo(failed: batch))
            }
            written.append(batch)
        }
    }

    /// Puts back what the change wrote, the `failed` batch included, and says what holds.
    private func undo(failed: [ControlPlan.Write]) -> String {
        let after = read()
        let attempted = written + (failed.isEmpty ? [] : [failed])
        let wrote = Set(attempted.joined().map(\.id))
        // What to write back: every control of the change that reads otherwise than before it,
        // and one that cannot be read but was written (or may have been).
        var changed = Set<UInt32>()
        for write in touched {
            guard let before = write.previous else { continue }
            if let now = after[write.id].flatMap(Self.readable) {
                if now != before { changed.insert(write.id) }
            } else if wrote.contains(write.id) {
                changed.insert(write.id)
            }
        }
        var done = Set<UInt32>()
        for batch in attempted.reversed() {
            var back: [ControlPlan.Write] = []
            for write in batch where changed.contains(write.id) && !done.contains(write.id) {
                guard let original = touched.first(where: { $0.id == write.id })?.previous else { continue }
                back.append(ControlPlan.Write(name: write.name, id: write.id, value: original))
                done.insert(write.id)
            }
            if V4L2ControlWriter.write(back, on: handle, types: types, request: CShim_VIDIOC_S_EXT_CTRLS) != nil,
                back.count > 1
            {
                // One control the camera refuses must not keep the others from going back.
                for single in back {
                    _ = V4L2ControlWriter.write([single], on: handle, types: types, request: CShim_VIDIOC_S_EXT_CTRLS)
                }
            }
        }
        return Self.outcome(
            touched: touched, putBack: changed, written: Set(written.joined().map(\.id)),
            mayHaveWritten: Set(failed.map(\.id)), now: read())
    }

    /// Every control as the camera reports it now, by id.
    private func read() -> [UInt32: CameraControl] {
        Dictionary(V4L2Controls.enumerate(handle).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The value of `control` that proves what it holds: nil for one that cannot be read (a
    /// button, write-only) or that the camera sets itself (volatile, or inactive while its
    /// automatic mode is on).
    static func readable(_ control: CameraControl) -> ControlValue? {
        guard control.type != "button", !control.flags.contains("write-only"), !control.flags.contains("volatile"),
            !control.flags.contains("inactive")
        else { return nil }
        return control.currentValue
    }

    /// What a failed change left on the camera, as the end of its error line.
    ///
    /// - Parameters:
    ///   - touched: every control of the change: the value asked and the value before.
    ///   - putBack: the controls written back to their value before the change.
    ///   - written: the controls of batches that went in; `mayHaveWritten`: of the batch that
    ///     failed, which may have applied part of itself.
    ///   - now: the controls as read back at the end.
    /// - Returns: "brightness was put back to 0", "contrast holds 50 (it was 32)", several
    ///   joined by ", ", or "nothing was set" when every control reads as it did before.
    static func outcome(
        touched: [ControlPlan.Write], putBack: Set<UInt32>, written: Set<UInt32>, mayHaveWritten: Set<UInt32>,
        now: [UInt32: CameraControl]
    ) -> String {
        var parts: [String] = []
        for write in touched {
            if let value = now[write.id].flatMap(readable), let before = write.previous {
                if value != before {
                    parts.append("\(write.name) holds \(value) (it was \(before))")
                } else if putBack.contains(write.id) {
                    parts.append("\(write.name) was put back to \(before)")
                }
            } else if now[write.id].map({ $0.flags.contains("volatile") || $0.flags.contains("inactive") }) == true {
                // The camera sets it itself now: what it reads says nothing about the change.
                continue
            } else if written.contains(write.id) {
                parts.append("\(write.name) was set to \(write.value) and cannot be read back")
            } else if mayHaveWritten.contains(write.id) {
                parts.append("\(write.name) may hold \(write.value) (it cannot be read back)")
            }
        }
        return parts.isEmpty ? "nothing was set" : parts.joined(separator: ", ")
    }

    /// Writes `plan` as far as the camera takes it, a batch it refuses one control at a time,
    /// then reads every control back: a restore, which has nothing to fall back to.
    ///
    /// - Returns: one line per control of the plan that does not hold its value afterwards,
    ///   saying what it holds and why it could not be written.
    static func restore(_ plan: ControlPlan, on handle: V4L2Handle, controls: [CameraControl]) -> [String] {
        let types = Dictionary(controls.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var refused: [UInt32: String] = [:]
        for batch in plan.batches {
            guard
                let (_, error) = V4L2ControlWriter.write(
                    batch, on: handle, types: types, request: CShim_VIDIOC_S_EXT_CTRLS)
            else { continue }
            if batch.count == 1 {
                refused[batch[0].id] = "\(error.call): \(error.message)"
                continue
            }
            for single in batch {
                if let (_, error) = V4L2ControlWriter.write(
                    [single], on: handle, types: types, request: CShim_VIDIOC_S_EXT_CTRLS)
                {
                    refused[single.id] = "\(error.call): \(error.message)"
                }
            }
        }
        let now = Dictionary(
            V4L2Controls.enumerate(handle).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return plan.writes.compactMap { write in
            let why = refused[write.id].map { " (\($0))" } ?? ""
            guard let control = now[write.id] else { return "\(write.name): cannot be read back\(why)" }
            guard let value = readable(control) else {
                return refused[write.id] == nil ? nil : "\(write.name) was not put back to \(write.value)\(why)"
            }
            return value == write.value ? nil : "\(write.name) holds \(value), not \(write.value)\(why)"
        }
    }
}
