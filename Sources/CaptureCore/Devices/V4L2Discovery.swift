internal import CShim
import FoundationEssentials
import Glibc

/// Enumerates V4L2 nodes through sysfs and VIDIOC_QUERYCAP, and classifies each by its device
/// capabilities.
///
/// FFmpeg's own listing keeps any node whose whole-device `capabilities` include video capture,
/// which calls metadata, VBI and touch nodes cameras and misses multiplanar-only ones; this
/// decides by `device_caps`, the node's own.
enum V4L2Discovery {
    static let sysfsClass = "/sys/class/video4linux"

    /// Every V4L2 node, cameras and others alike, sorted by kind (video nodes first) and number.
    ///
    /// Each node is opened only for VIDIOC_QUERYCAP and closed at once. A node that cannot be
    /// opened is still returned: a `video` node as a camera marked not accessible, others as
    /// `other`.
    static func nodes() -> [Device] {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: sysfsClass) else { return [] }
        let stable = stableLinks()
        return entries.sorted(by: nodeOrder).map { entry in
            node(sysfsName: entry, path: devicePath(sysfsName: entry), stableLinks: stable)
        }
    }

    /// The device for a path given by the user (`/dev/video0`, a `/dev/v4l/by-id/...` link).
    ///
    /// - Throws: `.deviceNotFound` (66) listing the cameras when the path does not exist or is not
    ///   a V4L2 node; `.permissionDenied` (77) naming the group that owns the node;
    ///   `.notSupported` (69) when the node is not a camera, saying what it is.
    static func device(path: String) throws(CaptureError) -> Device {
        let fm = FileManager.default
        let cameras = { nodes().filter { $0.role == "camera" }.map(\.name) + ["test"] }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard fm.fileExists(atPath: resolved) else {
            throw .deviceNotFound(device: path, valid: cameras(), hint: nil)
        }
        guard let sysfsName = sysfsName(devicePath: resolved) else {
            // It exists, so it is not missing: say what it is instead.
            throw .notSupported(
                device: path,
                reason:
                    "not a camera: \(fileKind(resolved)) that is not a V4L2 node; cameras: \(cameras().joined(separator: ", "))"
            )
        }
        var device = node(sysfsName: sysfsName, path: resolved, stableLinks: stableLinks())
        if path != resolved && path.hasPrefix("/dev/v4l/") { device.v4l2?.stablePath = path }
        if !device.accessible {
            throw .permissionDenied(device: resolved, group: groupName(path: resolved) ?? "video")
        }
        guard device.role == "camera" else {
            throw .notSupported(
                device: resolved,
                reason:
                    "not a camera: it is a \(V4L2Capabilities.describe(role: device.role)) (\(device.description)); "
                    + "cameras: \(cameras().joined(separator: ", "))")
        }
        return device
    }

    /// "a character device", "a regular file", ... for a path that exists (`lstat` after the
    /// links are resolved).
    static func fileKind(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "a file" }
        switch info.st_mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFREG: return "a regular file"
        default: return "a file"
        }
    }

    /// Describes one node: VIDIOC_QUERYCAP when it opens, sysfs otherwise.
    static func node(sysfsName: String, path: String, stableLinks: [String: String]) -> Device {
        let sysfs = "\(sysfsClass)/\(sysfsName)"
        let group = PhysicalDevice.groupID(deviceLink: "\(sysfs)/device")
        let sysfsLabel =
            (try? String(contentsOfFile: "\(sysfs)/name", encoding: .utf8))?
            .trimmingWhitespace() ?? sysfsName
        if sysfsName.hasPrefix("v4l-subdev") {
            // Sub-devices answer VIDIOC_SUBDEV_QUERYCAP, not VIDIOC_QUERYCAP; their role is their name.
            return Device(
                name: path, kind: .video, api: .v4l2, role: "subdev", description: sysfsLabel,
                accessible: access(path, R_OK) == 0, group: group)
        }
        do {
            let handle = try V4L2Handle(path: path)
            let caps = try handle.queryCapabilities()
            let nodeCaps = V4L2Capabilities.nodeCapabilities(
                capabilities: caps.capabilities, deviceCaps: caps.device_caps)
            let role = nodeCaps.role
            let details = V4L2Details(
                path: path, stablePath: stableLinks[path], card: decodeCString(caps.card),
                driver: decodeCString(caps.driver), busInfo: decodeCString(caps.bus_info),
                multiplanar: nodeCaps.contains(.videoCaptureMultiplanar) && !nodeCaps.contains(.videoCapture),
                capabilities: V4L2Capabilities(rawValue: caps.capabilities).names,
                deviceCaps: nodeCaps.names)
            return Device(
                name: path, kind: .video, api: .v4l2, role: role, description: details.card,
                group: group, v4l2: details)
        } catch {
            // Without QUERYCAP only the node's name tells what it is; a video node is most likely
            // a camera, and a camera the user cannot open must still be listed with the reason.
            let role = sysfsName.hasPrefix("video") ? "camera" : roleFromName(sysfsName)
            // The driver's name is the target of the device's `driver` link; bus info needs QUERYCAP.
            let driver =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(sysfs)/device/driver"))
                .map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
            return Device(
                name: path, kind: .video, api: .v4l2, role: role, description: sysfsLabel,
                accessible: false, reason: reason(path: path, error: error), group: group,
                v4l2: V4L2Details(
                    path: path, stablePath: stableLinks[path], card: sysfsLabel, driver: driver, busInfo: "",
                    multiplanar: false, capabilities: [], deviceCaps: []))
        }
    }

    /// Why a node could not be queried, with the fix for a permission problem.
    static func reason(path: String, error: V4L2CallError) -> String {
        guard error.errno.isPermission else {
            return "\(error.call) failed: \(error.message)"
        }
        var owner = ""
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path) {
            let user = attributes[.ownerAccountName] as? String ?? "?"
            let group = attributes[.groupOwnerAccountName] as? String ?? "?"
            // stat(2): FileManager's permissions come back as a type that differs between platforms.
            var info = stat()
            let mode = stat(path, &info) == 0 ? String(info.st_mode & 0o7777, radix: 8) : "?"
            owner = " (owner \(user), group \(group), mode \(mode))"
        }
        guard let group = groupName(path: path) else {
            // No group to join: only a udev rule (as Debian's give cameras) opens the node to users.
            return "permission denied\(owner); the node is root's alone: give it to the 'video' group with a udev "
                + "rule (GROUP=\"video\", MODE=\"0660\"), as Debian's rules do for cameras, then join that group"
        }
        return
            "permission denied\(owner); join the '\(group)' group (sudo usermod -aG \(group) $USER, then log in again)"
    }

    /// The group owning the node, when it is not root's: the group to join for access.
    static func groupName(path: String) -> String? {
        guard let group = (try? FileManager.default.attributesOfItem(atPath: path))?[.groupOwnerAccountName] as? String,
            group != "root"
        else { return nil }
        return group
    }

    private static func roleFromName(_ name: String) -> String {
        if name.hasPrefix("vbi") { return "vbi-capture" }
        if name.hasPrefix("radio") { return "radio" }
        if name.hasPrefix("swradio") { return "sdr" }
        if name.hasPrefix("v4l-touch") { return "touch" }
        return "other"
    }

    /// `/dev/NAME` for a sysfs entry, from its uevent's DEVNAME when present.
    static func devicePath(sysfsName: String) -> String {
        if let uevent = try? String(contentsOfFile: "\(sysfsClass)/\(sysfsName)/uevent", encoding: .utf8) {
            for line in uevent.split(separator: "\n") where line.hasPrefix("DEVNAME=") {
                return "/dev/" + line.dropFirst("DEVNAME=".count)
            }
        }
        return "/dev/\(sysfsName)"
    }

    /// The sysfs entry of a device node, matched by device number (so renamed nodes work too).
    static func sysfsName(devicePath: String) -> String? {
        var info = stat()
        guard stat(devicePath, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else { return nil }
        let number = "\(major(info.st_rdev)):\(minor(info.st_rdev))"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: sysfsClass)) ?? []
        return entries.first { entry in
            let dev = try? String(contentsOfFile: "\(sysfsClass)/\(entry)/dev", encoding: .utf8)
            return dev?.trimmingWhitespace() == number
        }
    }

    /// Maps each node path to its udev link: `/dev/v4l/by-id` first, else `/dev/v4l/by-path`.
    static func stableLinks() -> [String: String] {
        var links: [String: String] = [:]
        for folder in ["/dev/v4l/by-path", "/dev/v4l/by-id"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() {
                let link = "\(folder)/\(name)"
                links[URL(fileURLWithPath: link).resolvingSymlinksInPath().path] = link
            }
        }
        return links
    }

    /// Video nodes first, then the other kinds by name; within a kind by node number.
    static func nodeOrder(_ a: String, _ b: String) -> Bool {
        func split(_ name: String) -> (String, Int) {
            let digits = name.reversed().prefix { $0.isNumber }
            let prefix = String(name.dropLast(digits.count))
            return (prefix == "video" ? "" : prefix, Int(String(digits.reversed())) ?? 0)
        }
        let (pa, na) = split(a)
        let (pb, nb) = split(b)
        return pa == pb ? na < nb : pa < pb
    }
}

private func major(_ device: UInt) -> UInt32 {
    UInt32(truncatingIfNeeded: ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff))
}
private func minor(_ device: UInt) -> UInt32 { UInt32(truncatingIfNeeded: (device & 0xff) | ((device >> 12) & ~0xff)) }
