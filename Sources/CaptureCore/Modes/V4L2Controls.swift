internal import CShim
import FoundationEssentials
import Glibc

/// Reads a node's controls: VIDIOC_QUERY_EXT_CTRL (VIDIOC_QUERYCTRL on drivers older than
/// Linux 3.17), VIDIOC_QUERYMENU for menu entries, VIDIOC_G_EXT_CTRLS for current values.
enum V4L2Controls {
    // linux/videodev2.h values, restated because Swift does not import these macros.
    static let nextControl: UInt32 = 0x8000_0000
    static let nextCompound: UInt32 = 0x4000_0000
    static let flagDisabled: UInt32 = 0x0001
    static let flagWriteOnly: UInt32 = 0x0040
    static let flagHasPayload: UInt32 = 0x0100

    enum ControlType: UInt32 {
        case integer = 1, boolean, menu, button, integer64, controlClass, string, bitmask, integerMenu
        case u8 = 0x100, u16 = 0x101, u32 = 0x102, area = 0x106
    }

    /// Every enabled control, in the driver's order, each labelled with its class heading.
    static func enumerate(_ handle: V4L2Handle) -> [CameraControl] {
        var controls: [CameraControl] = []
        var className: String?
        var query = v4l2_query_ext_ctrl()
        query.id = nextControl | nextCompound
        var usedExtended = false
        while (try? handle.ioctl(CShim_VIDIOC_QUERY_EXT_CTRL, "VIDIOC_QUERY_EXT_CTRL", &query)) != nil {
            usedExtended = true
            defer {
                let id = query.id
                query = v4l2_query_ext_ctrl()
                query.id = id | nextControl | nextCompound
            }
            if query.flags & flagDisabled != 0 { continue }
            let label = decodeCString(query.name)
            if query.type == ControlType.controlClass.rawValue {
                className = label
                continue
            }
            let dims = (0..<Int(query.nr_of_dims)).map { i in
                withUnsafeBytes(of: query.dims) { Int($0.load(fromByteOffset: i * 4, as: UInt32.self)) }
            }
            var control = CameraControl(
                id: query.id, name: variableName(label), label: label, className: className,
                type: typeName(query.type), minimum: query.minimum, maximum: query.maximum, step: query.step,
                defaultValue: query.default_value, value: nil, stringValue: nil, flags: flagNames(query.flags),
                dims: dims, menu: [])
            readValue(handle, query: query, into: &control)
            if query.type == ControlType.menu.rawValue || query.type == ControlType.integerMenu.rawValue {
                control.menu = menuEntries(
                    handle, id: query.id, range: query.minimum...query.maximum,
                    integer: query.type == ControlType.integerMenu.rawValue)
            }
            controls.append(control)
        }
        return usedExtended ? controls : enumerateLegacy(handle)
    }

    /// VIDIOC_QUERYCTRL and VIDIOC_G_CTRL, for drivers without VIDIOC_QUERY_EXT_CTRL.
    static func enumerateLegacy(_ handle: V4L2Handle) -> [CameraControl] {
        var controls: [CameraControl] = []
        var className: String?
        var query = v4l2_queryctrl()
        query.id = nextControl
        while (try? handle.ioctl(CShim_VIDIOC_QUERYCTRL, "VIDIOC_QUERYCTRL", &query)) != nil {
            defer {
                let id = query.id
                query = v4l2_queryctrl()
                query.id = id | nextControl
            }
            if query.flags & flagDisabled != 0 { continue }
            let label = decodeCString(query.name)
            if query.type == ControlType.controlClass.rawValue {
                className = label
                continue
            }
            var value: Int64?
            let readable = query.flags & flagWriteOnly == 0 && query.type != ControlType.button.rawValue
            if readable {
                var get = v4l2_control()
                get.id = query.id
                if (try? handle.ioctl(CShim_VIDIOC_G_CTRL, "VIDIOC_G_CTRL", &get)) != nil { value = Int64(get.value) }
            }
            let isMenu = query.type == ControlType.menu.rawValue || query.type == ControlType.integerMenu.rawValue
            controls.append(
                CameraControl(
                    id: query.id, name: variableName(label), label: label, className: className,
                    type: typeName(query.type), minimum: Int64(query.minimum), maximum: Int64(query.maximum),
                    step: UInt64(query.step), defaultValue: Int64(query.default_value), value: value,
                    stringValue: nil, flags: flagNames(query.flags), dims: [],
                    menu: isMenu
                        ? menuEntries(
                            handle, id: query.id, range: Int64(query.minimum)...Int64(query.maximum),
                            integer: query.type == ControlType.integerMenu.rawValue)
                        : []))
        }
        return controls
    }

    /// Reads the current value with VIDIOC_G_EXT_CTRLS, for controls that have one to read.
    static func readValue(_ handle: V4L2Handle, query: v4l2_query_ext_ctrl, into control: inout CameraControl) {
        guard let type = ControlType(rawValue: query.type), query.flags & flagWriteOnly == 0 else { return }
        var one = v4l2_ext_control()
        one.id = query.id
        var buffer: [CChar] = []
        switch type {
        case .string:
            buffer = [CChar](repeating: 0, count: Int(query.elem_size) + 1)
            one.size = query.elem_size
        case .integer, .boolean, .menu, .integerMenu, .bitmask, .integer64:
            if query.flags & flagHasPayload != 0 { return }
        default:
            return
        }
        let ok = buffer.withUnsafeMutableBufferPointer { storage -> Bool in
            if type == .string { one.string = storage.baseAddress }
            return withUnsafeMutablePointer(to: &one) { pointer in
                var request = v4l2_ext_controls()
                request.which = 0  // V4L2_CTRL_WHICH_CUR_VAL
                request.count = 1
                request.controls = pointer
                return (try? handle.ioctl(CShim_VIDIOC_G_EXT_CTRLS, "VIDIOC_G_EXT_CTRLS", &request)) != nil
            }
        }
        guard ok else { return }
        switch type {
        case .string:
            control.stringValue = String(
                decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        case .integer64:
            control.value = one.value64
        case .bitmask:
            control.value = Int64(UInt32(bitPattern: one.value))
        default:
            control.value = Int64(one.value)
        }
    }

    /// The entries of a menu control, skipping the indices the driver leaves out.
    static func menuEntries(_ handle: V4L2Handle, id: UInt32, range: ClosedRange<Int64>, integer: Bool) -> [MenuEntry] {
        guard range.lowerBound >= 0, range.count <= 1024 else { return [] }
        var entries: [MenuEntry] = []
        for index in range {
            var item = v4l2_querymenu()
            item.id = id
            item.index = UInt32(index)
            guard (try? handle.ioctl(CShim_VIDIOC_QUERYMENU, "VIDIOC_QUERYMENU", &item)) != nil else { continue }
            entries.append(
                integer
                    ? MenuEntry(index: index, name: nil, value: item.value)
                    : MenuEntry(index: index, name: decodeCString(item.name), value: nil))
        }
        return entries
    }

    /// The name v4l2-ctl derives from a label: lower case letters and digits, each run of other
    /// characters one underscore ("White Balance, Automatic" -> "white_balance_automatic").
    static func variableName(_ label: String) -> String {
        var result = ""
        var pendingUnderscore = false
        for scalar in label.unicodeScalars {
            if scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil) {
                if pendingUnderscore { result += "_" }
                pendingUnderscore = false
                result += String(scalar).lowercased()
            } else if !result.isEmpty {
                pendingUnderscore = true
            }
        }
        return result
    }

    static func typeName(_ raw: UInt32) -> String {
        switch ControlType(rawValue: raw) {
        case .integer: "int"
        case .boolean: "bool"
        case .menu: "menu"
        case .button: "button"
        case .integer64: "int64"
        case .controlClass: "ctrl_class"
        case .string: "str"
        case .bitmask: "bitmask"
        case .integerMenu: "intmenu"
        case .u8: "u8"
        case .u16: "u16"
        case .u32: "u32"
        case .area: "area"
        case nil: String(cFormat: "type-0x%04x", raw)
        }
    }

    static func flagNames(_ flags: UInt32) -> [String] {
        let names: [(UInt32, String)] = [
            (0x0001, "disabled"), (0x0002, "grabbed"), (0x0004, "read-only"), (0x0008, "update"),
            (0x0010, "inactive"), (0x0020, "slider"), (0x0040, "write-only"), (0x0080, "volatile"),
            (0x0100, "has-payload"), (0x0200, "execute-on-write"), (0x0400, "modify-layout"),
            (0x0800, "dynamic-array"),
        ]
        return names.filter { flags & $0.0 != 0 }.map(\.1)
    }
}
