import FoundationEssentials
import Glibc

extension CameraControl {
    /// The control class (V4L2_CTRL_ID2WHICH): the ID's upper bits, what VIDIOC_S_EXT_CTRLS
    /// takes as `which` for a batch of one class.
    var classID: UInt32 { id & 0x0fff_0000 }

    /// True for the types capture reads and writes as one value: integers, booleans, menus,
    /// bitmasks, strings, buttons. Arrays and compound types (u8/u16/u32 arrays, area) are not.
    var isScalar: Bool {
        dims.isEmpty && ["int", "bool", "menu", "intmenu", "int64", "bitmask", "str", "button"].contains(type)
    }

    var isReadOnly: Bool { flags.contains("read-only") }

    /// A control whose value can be read and written back: what reset and save cover.
    public var isSavable: Bool {
        isScalar && type != "button" && !isReadOnly && !flags.contains("write-only")
    }

    /// The current value as last read, if it has one.
    public var currentValue: ControlValue? {
        if type == "str" { return stringValue.map(ControlValue.string) }
        return value.map(ControlValue.integer)
    }

    /// What the control takes, for error messages: "0 to 255 in steps of 1", "1 (Menu Item 1),
    /// 3 (Menu Item 3)", "0/1, true/false, on/off".
    public var rangeDescription: String {
        switch type {
        case "bool": return "0/1, true/false or on/off"
        case "menu", "intmenu":
            return menu.map { "\($0.index) (\($0.name ?? $0.value.map(String.init) ?? ""))" }.joined(separator: ", ")
        case "bitmask": return "a bit mask within 0x" + String(UInt32(truncatingIfNeeded: maximum), radix: 16)
        case "str": return "text of \(minimum) to \(maximum) characters" + (step > 1 ? " in steps of \(step)" : "")
        case "button": return "any value (it is a button)"
        default: return "\(minimum) to \(maximum)" + (step > 1 ? " in steps of \(step)" : "")
        }
    }
}

/// Turns the text of `NAME=VALUE` into the value a control takes, checking type, range and step
/// the way the kernel would but before anything is written.
enum ControlValueParser {
    /// Why a value does not fit; the message completes "NAME=VALUE ...".
    struct Rejection: Error, Equatable {
        var reason: String
    }

    /// Parses `text` for `control`.
    ///
    /// Integers in decimal or 0x hex; booleans as 0/1, true/false, on/off, yes/no; menu entries
    /// by index or by name (case-insensitive), indices the driver leaves out refused; bitmasks as
    /// numbers within the control's mask; strings as they are, within the length range.
    /// - Throws: `Rejection` saying what is wrong and what the control takes.
    static func parse(_ text: String, for control: CameraControl) throws(Rejection) -> ControlValue {
        let trimmed = text.trimmingSpaces()
        let takes = "\(control.name) takes \(control.rangeDescription)"
        switch control.type {
        case "str":
            let length = Int64(text.utf8.count)
            let step = Int64(max(control.step, 1))
            guard length >= control.minimum, length <= control.maximum, (length - control.minimum) % step == 0 else {
                throw Rejection(reason: "has \(length) characters; \(takes)")
            }
            return .string(text)
        case "button":
            return .integer(1)
        case "bool":
            switch trimmed.lowercased() {
            case "1", "true", "on", "yes": return .integer(1)
            case "0", "false", "off", "no": return .integer(0)
            default: throw Rejection(reason: "is not a boolean; \(takes)")
            }
        case "menu", "intmenu":
            return try menuEntry(trimmed, for: control, takes: takes)
        case "bitmask":
            guard let number = integer(trimmed), number >= 0, number <= Int64(UInt32.max) else {
                throw Rejection(reason: "is not a bit mask; \(takes)")
            }
            let mask = Int64(UInt32(truncatingIfNeeded: control.maximum))
            guard number & ~mask == 0 else { throw Rejection(reason: "sets bits outside the mask; \(takes)") }
            return .integer(number)
        case "int", "int64":
            return try wholeNumber(trimmed, for: control, takes: takes)
        default:
            throw Rejection(
                reason:
                    "cannot be set by capture: \(control.name) is a \(control.type) array or compound control; use v4l2-ctl"
            )
        }
    }

    /// A menu entry by its index or its name (in any case).
    private static func menuEntry(_ text: String, for control: CameraControl, takes: String) throws(Rejection)
        -> ControlValue
    {
        if let index = integer(text) {
            guard control.menu.contains(where: { $0.index == index }) else {
                throw Rejection(reason: "is not one of the menu's entries; \(takes)")
            }
            return .integer(index)
        }
        if let entry = control.menu.first(where: { $0.name?.equalsIgnoringCase(text) == true }) {
            return .integer(entry.index)
        }
        throw Rejection(reason: "is not one of the menu's entries; \(takes)")
    }

    /// A whole number within the control's range and on its step (the nearest values said when not).
    private static func wholeNumber(_ text: String, for control: CameraControl, takes: String) throws(Rejection)
        -> ControlValue
    {
        guard let number = integer(text) else { throw Rejection(reason: "is not a whole number; \(takes)") }
        guard number >= control.minimum, number <= control.maximum else {
            throw Rejection(reason: "is out of range; \(takes)")
        }
        let step = max(control.step, 1)
        let offset = UInt64(bitPattern: number &- control.minimum)
        if offset % step != 0 {
            let below = number &- Int64(offset % step)
            let above = below &+ Int64(step)
            let nearest = [below, above].filter { $0 >= control.minimum && $0 <= control.maximum }
            throw Rejection(
                reason:
                    "is not on the control's step; \(takes) (nearest: \(nearest.map(String.init).joined(separator: " or ")))"
            )
        }
        return .integer(number)
    }

    /// A decimal or 0x-prefixed hexadecimal integer, with an optional sign.
    static func integer(_ text: String) -> Int64? {
        var body = Substring(text)
        var negative = false
        if body.hasPrefix("-") || body.hasPrefix("+") {
            negative = body.hasPrefix("-")
            body = body.dropFirst()
        }
        let magnitude: UInt64?
        if body.lowercased().hasPrefix("0x") {
            magnitude = UInt64(body.dropFirst(2), radix: 16)
        } else {
            magnitude = body.allSatisfy(\.isASCII) ? UInt64(body) : nil
        }
        guard let magnitude else { return nil }
        if negative {
            return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}
