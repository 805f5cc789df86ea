import CaptureCore
import FoundationEssentials
import Glibc

/// `capture controls` as text: the listing in v4l2-ctl's `-L` layout, and what a set did.
enum ControlsText {
    /// The camera line, then each class heading and its controls with their menus.
    static func list(_ identity: CameraIdentity, _ controls: [CameraControl]) -> String {
        var out = "Camera \(identity.path): \(identity.card) (\(identity.driver), \(identity.busInfo))\n"
        var lastClass: String?? = .none
        for control in controls {
            if lastClass != .some(control.className) {
                lastClass = .some(control.className)
                out += "\n\(control.className ?? "Controls")\n\n"
            }
            out += line(control)
        }
        return out
    }

    /// One control as v4l2-ctl -L prints it: name, ID, type, then range, default, value, flags;
    /// menu entries on their own lines.
    static func line(_ c: CameraControl) -> String {
        var parts: [String] = []
        func hex(_ value: Int64) -> String { "0x" + String(cFormat: "%08x", UInt32(truncatingIfNeeded: value)) }
        switch c.type {
        case "bool":
            parts.append("default=\(c.defaultValue)")
        case "button":
            break
        case "bitmask":
            parts += ["max=\(hex(c.maximum))", "default=\(hex(c.defaultValue))"]
        case "menu", "intmenu":
            parts += ["min=\(c.minimum)", "max=\(c.maximum)", "default=\(c.defaultValue)"]
        case "str":
            parts += ["min=\(c.minimum)", "max=\(c.maximum)", "step=\(c.step)"]
        default:
            parts += ["min=\(c.minimum)", "max=\(c.maximum)", "step=\(c.step)", "default=\(c.defaultValue)"]
        }
        if !c.dims.isEmpty { parts.append("dims=" + c.dims.map { "[\($0)]" }.joined()) }
        if let value = c.value {
            var text = c.type == "bitmask" ? "value=\(hex(value))" : "value=\(value)"
            if let entry = c.menu.first(where: { $0.index == value }) { text += " (\(entryName(entry)))" }
            parts.append(text)
        } else if let string = c.stringValue {
            parts.append("value='\(string)'")
        }
        if !c.flags.isEmpty { parts.append("flags=\(c.flags.joined(separator: ", "))") }
        let name = String(repeating: " ", count: max(0, 31 - c.name.count)) + c.name
        let type = ("(" + c.type + ")").padded(toLength: max(9, c.type.count + 2))
        var out = "\(name) \(hex(Int64(c.id))) \(type): \(parts.joined(separator: " "))\n"
        for entry in c.menu { out += "\t\t\t\t\(entry.index): \(entryName(entry))\n" }
        return out
    }

    static func entryName(_ entry: MenuEntry) -> String {
        entry.name ?? entry.value.map { "\($0) (0x\(String($0, radix: 16)))" } ?? ""
    }

    /// One line per control written: `gain: 100 -> 200`, and for a value the driver changed
    /// `gain: asked 201, the driver holds 200`.
    /// With `onlyChanges` (a reset or a profile, which write every control), controls that kept
    /// their value are counted rather than listed.
    static func applied(_ report: ControlReport, controls: [CameraControl], onlyChanges: Bool = false) -> String {
        var out = ""
        var unchanged = 0
        for entry in report.controls {
            if onlyChanges && !entry.changedByDriver && entry.previous == entry.value {
                unchanged += 1
                continue
            }
            let control = controls.first { $0.name == entry.name }
            func show(_ value: ControlValue?) -> String {
                guard let value else { return "?" }
                if case .integer(let number) = value, control?.type == "bitmask" {
                    return "0x" + String(cFormat: "%08x", UInt32(truncatingIfNeeded: number))
                }
                if case .integer(let number) = value, let entry = control?.menu.first(where: { $0.index == number }) {
                    return "\(number) (\(entryName(entry)))"
                }
                return value.description
            }
            if entry.changedByDriver {
                out +=
                    "\(entry.name): asked \(show(entry.requested)), the driver holds \(show(entry.value)) (was \(show(entry.previous)))\n"
            } else if control?.type == "button" {
                out += "\(entry.name): pressed\n"
            } else {
                out += "\(entry.name): \(show(entry.previous)) -> \(show(entry.value))\n"
            }
        }
        for name in report.skipped { out += "\(name): left to the camera (its automatic mode is on)\n" }
        if unchanged > 0 { out += "\(unchanged) controls kept their value\n" }
        return out
    }

    /// The summary lines of `record --control`: `  control: brightness 128 -> 20`, and what the
    /// driver changed.
    static func recorded(_ report: ControlReport) -> String {
        report.controls.map { entry in
            let before = entry.previous.map { "\($0) -> " } ?? ""
            let now = entry.value.map { "\($0)" } ?? "\(entry.requested)"
            let changed = entry.changedByDriver ? " (asked \(entry.requested); changed by the driver)" : ""
            return "  control: \(entry.name) \(before)\(now)\(changed)\n"
        }.joined() + report.skipped.map { "  control: \($0) left to the camera (its automatic mode is on)\n" }.joined()
    }

    /// A microphone's capture mixer elements, laid out as `amixer scontents` does.
    static func mixer(device: String, card: String, _ elements: [MixerElement]) -> String {
        var out = "Microphone \(device): capture mixer of card \(card)\n"
        if elements.isEmpty { out += "\t(no capture volume, switch or source)\n" }
        for element in elements {
            out += "Simple mixer control '\(element.name)',\(element.index)\n"
            out += "  Capabilities: \(element.capabilities.joined(separator: " "))\n"
            if element.isEnum {
                out += "  Items: \(element.items.map { "'\($0)'" }.joined(separator: " "))\n"
            }
            if element.hasVolume || element.hasSwitch {
                out += "  Capture channels: \(element.channels.map(\.name).joined(separator: " - "))\n"
            }
            if let minimum = element.minimum, let maximum = element.maximum {
                let dB = element.minimumDB.map { " [\(decibels($0)) - \(decibels(element.maximumDB ?? $0))]" } ?? ""
                out += "  Limits: Capture \(minimum) - \(maximum)\(dB)\n"
            }
            for channel in element.channels { out += "  \(channel.name): \(state(channel))\n" }
        }
        return out
    }

    /// `Capture 0 [33%] [-30.00dB] [off]`, `Item0: 'Line'` for an enum.
    static func state(_ channel: MixerElement.Channel) -> String {
        var parts: [String] = []
        if let volume = channel.volume { parts.append("Capture \(volume)") }
        if let percent = channel.percent { parts.append("[\(percent)%]") }
        if let dB = channel.dB { parts.append("[\(decibels(dB))]") }
        if let on = channel.captureOn { parts.append(on ? "[on]" : "[off]") }
        if let item = channel.item { parts.append("'\(item)'") }
        return parts.joined(separator: " ")
    }

    static func decibels(_ value: Double) -> String { String(cFormat: "%.2fdB", value) }

    /// `Mic: Front Left: Capture 0 [33%] [-30.00dB] [off] -> Capture 50 [67%] [-15.00dB] [on]`
    static func mixerChanges(_ changes: [MixerChange]) -> String {
        changes.map { change in
            zip(change.before.channels, change.after.channels).map { before, after in
                "\(change.name): \(after.name): \(state(before)) -> \(state(after))\n"
            }.joined()
        }.joined()
    }
}
