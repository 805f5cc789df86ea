import FoundationEssentials
import Glibc

/// Who a camera is, as far as it can tell across re-plugs: what a saved profile records so it is
/// loaded only onto the same model.
///
/// JSON (snake_case keys) is the `device` object of a controls profile `capture controls` saves.
public struct CameraIdentity: Codable, Hashable, Sendable {
    /// The node the profile was made from (`/dev/video0`); informative only, numbers change.
    public var path: String
    /// VIDIOC_QUERYCAP `driver` (`uvcvideo`, `vivid`).
    public var driver: String
    /// VIDIOC_QUERYCAP `card`: the model's name.
    public var card: String
    /// VIDIOC_QUERYCAP `bus_info` (`usb-0000:00:14.0-2`): the port, not the model.
    public var busInfo: String
    /// The `/dev/v4l/by-id` link udev made for the node, when there is one.
    public var byID: String?
    /// The USB vendor:product ID (`046d:0825`), for a USB camera.
    public var usbID: String?
    /// The USB serial number, where the camera has one.
    public var usbSerial: String?

    enum CodingKeys: String, CodingKey {
        case path, driver, card, busInfo, byID = "byId", usbID = "usbId", usbSerial
    }

    /// True when `other` is the same model: driver and card alike, and the USB IDs when both
    /// have them. The port and the serial may differ: a profile moves to another unit.
    public func sameModel(as other: CameraIdentity) -> Bool {
        guard driver == other.driver, card == other.card else { return false }
        if let usbID, let otherID = other.usbID { return usbID == otherID }
        return true
    }

    /// "vivid 'vivid' (platform:vivid-000)"
    public var modelDescription: String {
        "\(driver) '\(card)'" + (usbID.map { " USB \($0)" } ?? "") + " (\(busInfo))"
    }

    /// Reads the identity of the node at `path` from VIDIOC_QUERYCAP, udev's by-id links and
    /// sysfs (the USB device above the video interface holds `idVendor`, `idProduct`, `serial`).
    static func read(path: String, capability: CapabilityNames) -> CameraIdentity {
        var identity = CameraIdentity(
            path: path, driver: capability.driver, card: capability.card, busInfo: capability.busInfo)
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let links = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/v4l/by-id")) ?? []
        identity.byID = links.sorted().map { "/dev/v4l/by-id/\($0)" }.first {
            URL(fileURLWithPath: $0).resolvingSymlinksInPath().path == resolved
        }
        if let sysfs = V4L2Discovery.sysfsName(devicePath: resolved) {
            var folder = URL(fileURLWithPath: "\(V4L2Discovery.sysfsClass)/\(sysfs)/device").resolvingSymlinksInPath()
            for _ in 0..<4 {
                func attribute(_ name: String) -> String? {
                    (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))?
                        .trimmingWhitespace()
                }
                if let vendor = attribute("idVendor"), let product = attribute("idProduct") {
                    identity.usbID = "\(vendor):\(product)"
                    identity.usbSerial = attribute("serial").flatMap { $0.isEmpty ? nil : $0 }
                    break
                }
                folder.deleteLastPathComponent()
            }
        }
        return identity
    }

    init(
        path: String, driver: String, card: String, busInfo: String, byID: String? = nil, usbID: String? = nil,
        usbSerial: String? = nil
    ) {
        self.path = path
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.byID = byID
        self.usbID = usbID
        self.usbSerial = usbSerial
    }
}

/// The three VIDIOC_QUERYCAP strings identity needs, decoded.
struct CapabilityNames {
    var driver: String
    var card: String
    var busInfo: String
}

/// A saved set of control values: `capture controls` saves it, loads it, and `record`
/// applies it.
///
/// JSON (snake_case keys): `{"format": "capture-controls", "version": 1, "device": CameraIdentity,
/// "controls": [{"name": "brightness", "value": 128}, ...]}`, values as numbers (menus by index)
/// or strings.
public struct ControlProfile: Codable, Hashable, Sendable {
    public struct Entry: Codable, Hashable, Sendable {
        public var name: String
        public var value: ControlValue
    }

    public var format = "capture-controls"
    public var version = 1
    public var device: CameraIdentity
    public var controls: [Entry]

    /// The profile of every savable control's current value. Manual values the camera sets itself
    /// (volatile while their automatic mode is on) are left out: loading them would be ignored.
    public init(identity: CameraIdentity, controls: [CameraControl]) {
        device = identity
        let gated = Set(
            AutoGate.gates(in: controls).compactMap { gate -> UInt32? in
                guard let auto = controls.first(where: { $0.id == gate.auto }), let mode = auto.value else {
                    return nil
                }
                return gate.activeWhen.contains(mode) ? nil : gate.manual
            })
        self.controls = controls.filter { $0.isSavable && !gated.contains($0.id) }.compactMap { control in
            control.currentValue.map { Entry(name: control.name, value: $0) }
        }
    }

    /// The profile's values as settings, for `ControlPlan.make`.
    public var settings: [ControlSetting] {
        controls.map { entry in
            switch entry.value {
            case .integer(let number): ControlSetting(name: entry.name, value: "\(number)")
            case .string(let text): ControlSetting(name: entry.name, value: text)
            }
        }
    }

    /// Reads a profile.
    ///
    /// - Throws: `CaptureError.fileNotFound` (66) when the file cannot be read, `.usage` (64)
    ///   when it is not a controls profile.
    public static func read(path: String) throws(CaptureError) -> ControlProfile {
        let fm = FileManager.default
        guard fm.fileExists(atPath: path) else { throw .fileNotFound(path: path, reason: "no such file") }
        guard fm.isReadableFile(atPath: path), let data = fm.contents(atPath: path) else {
            throw .fileNotFound(path: path, reason: "cannot be read (permission denied, or a directory)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let profile = try? decoder.decode(ControlProfile.self, from: data), profile.format == "capture-controls"
        else {
            throw .usage("\(path) is not a controls profile written by '\(.saveControls)'")
        }
        return profile
    }

    /// The profile as JSON text (snake_case keys, sorted, pretty), ending in a newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)) ?? Data()) + Data("\n".utf8)
    }
}
