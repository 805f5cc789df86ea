internal import CShim
import FoundationEssentials
import Glibc

/// The ioctls that write a batch of controls to a V4L2 node, and the line for one the driver
/// refuses. `ControlChange` writes plans through them and puts back what a failure left.
enum V4L2ControlWriter {
    /// linux/videodev2.h V4L2_CTRL_WHICH_CUR_VAL: a batch that may mix classes.
    static let whichCurrent: UInt32 = 0

    /// One VIDIOC_TRY_EXT_CTRLS or VIDIOC_S_EXT_CTRLS with every write of `batch`.
    ///
    /// - Returns: nil on success, else the index of the control the driver named (`error_idx`;
    ///   the batch's count when it names none) and the errno.
    static func write(
        _ batch: [ControlPlan.Write], on handle: V4L2Handle, types: [UInt32: CameraControl], request: UInt
    ) -> (Int, V4L2CallError)? {
        guard !batch.isEmpty else { return nil }
        var items = [v4l2_ext_control](repeating: v4l2_ext_control(), count: batch.count)
        // String values need buffers that outlive the call: one per write, sized to the
        // control's maximum plus the terminating NUL, as the kernel expects.
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { for buffer in strings { buffer.deallocate() } }
        for (index, write) in batch.enumerated() {
            items[index].id = write.id
            switch write.value {
            case .integer(let number):
                if types[write.id]?.type == "int64" {
                    items[index].value64 = number
                } else {
                    items[index].value = Int32(truncatingIfNeeded: number)
                }
            case .string(let text):
                let capacity = max(Int(types[write.id]?.maximum ?? 0), text.utf8.count) + 1
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
                buffer.initialize(repeating: 0, count: capacity)
                for (offset, byte) in text.utf8.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
                strings.append(buffer)
                items[index].string = buffer
                items[index].size = UInt32(capacity)
            }
        }
        let classes = Set(batch.map { $0.id & 0x0fff_0000 })
        let name = request == CShim_VIDIOC_TRY_EXT_CTRLS ? "VIDIOC_TRY_EXT_CTRLS" : "VIDIOC_S_EXT_CTRLS"
        return items.withUnsafeMutableBufferPointer { pointer -> (Int, V4L2CallError)? in
            var controls = v4l2_ext_controls()
            controls.which = classes.count == 1 ? classes.first! : whichCurrent
            controls.count = UInt32(batch.count)
            controls.controls = pointer.baseAddress
            do throws(V4L2CallError) {
                try handle.ioctl(request, name, &controls)
                return nil
            } catch {
                return (Int(controls.error_idx), error)
            }
        }
    }

    /// The user's line for a refused write, ending in `outcome`: what holds on the camera
    /// afterwards (`ControlChange.outcome`, "nothing was set" when nothing changed).
    ///
    /// EIO is an I/O error with the device (74); a value the driver refuses (EINVAL, ERANGE) or
    /// a control it will not write (EACCES, EPERM) is something the camera cannot do (69); a
    /// control held while the camera streams is busy (75).
    static func failure(
        _ error: V4L2CallError, write: ControlPlan.Write?, batch: [ControlPlan.Write], path: String, outcome: String
    ) -> CaptureError {
        let subject =
            write.map { "\($0.name)=\($0.value)" } ?? batch.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
        switch error.errno {
        case .busy:
            return .busy(device: "\(path) (control \(subject); \(outcome))", holder: nil)
        case .permissionDenied, .notPermitted:
            return .notSupported(
                device: path, reason: "\(subject): the driver says it cannot be written; \(outcome)")
        case .outOfRange, .invalidArgument:
            return .notSupported(
                device: path, reason: "the driver refused \(subject) (\(error.message)); \(outcome)")
        case .ioError:
            return .io(subject: path, reason: "\(error.call) failed for \(subject): \(error.message); \(outcome)")
        default:
            return .failed("\(path): \(error.call) failed for \(subject): \(error.message); \(outcome)")
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
