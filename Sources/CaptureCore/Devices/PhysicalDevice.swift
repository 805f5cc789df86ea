import FoundationEssentials
import Glibc

/// Ties a V4L2 node and an ALSA card to the physical device they belong to, so a webcam's camera
/// and microphone carry the same group id.
enum PhysicalDevice {
    /// The group id for a sysfs `device` link (`/sys/class/video4linux/video0/device`,
    /// `/sys/class/sound/card1/device`): the resolved sysfs path of the physical device, below
    /// `/sys/devices/`. A USB interface (it has `bInterfaceNumber`) is replaced by its USB device,
    /// since a webcam's video and audio are separate interfaces of one device.
    ///
    /// - Returns: e.g. `pci0000:00/0000:00:14.0/usb1/1-2`, or nil when the link is missing.
    static func groupID(deviceLink: String) -> String? {
        let fm = FileManager.default
        guard let resolved = try? fm.destinationOfSymbolicLink(atPath: deviceLink) else { return nil }
        // The link is relative to the folder it really lives in: /sys/class/... entries are
        // themselves links into /sys/devices, so resolve the folder before joining.
        let folder = URL(fileURLWithPath: deviceLink).deletingLastPathComponent().resolvingSymlinksInPath()
        var url = URL(fileURLWithPath: resolved, relativeTo: folder).standardizedFileURL
        if fm.fileExists(atPath: url.appendingPathComponent("bInterfaceNumber").path) {
            url.deleteLastPathComponent()
        }
        let path = url.path
        let prefix = "/sys/devices/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
