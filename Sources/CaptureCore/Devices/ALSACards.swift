import FoundationEssentials
import Glibc

/// One sound card and its capture PCM devices, as the control interface describes them.
struct ALSACard: Sendable {
    /// One capture PCM device of the card.
    struct CaptureDevice: Sendable {
        var number: Int
        var name: String
        var subdevicesAvailable: Int?
        var subdevicesTotal: Int?
    }

    var index: Int
    var id: String
    var name: String
    var capture: [CaptureDevice]
    /// Devices that play only, so a name like `hw:0,3` can be answered with what it is.
    var playbackOnly: [Int: String]
    /// Why the card's control interface could not be opened (then `capture` comes from the
    /// device nodes in sysfs and carries no names).
    var controlError: String?

    /// Every card, by number: from `snd_card_next`, and from sysfs for cards whose control
    /// device this user may not open (libasound skips those).
    static func all() -> [ALSACard] {
        var numbers = Set(ALSAControl.cardNumbers())
        let sysfs = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/sound")) ?? []
        for entry in sysfs where entry.hasPrefix("card") {
            if let number = Int(entry.dropFirst(4)) { numbers.insert(number) }
        }
        return numbers.sorted().map { card(number: $0, sysfs: sysfs) }
    }

    private static func card(number: Int, sysfs: [String]) -> ALSACard {
        do {
            let control = try ALSAControl(card: number)
            let info = control.cardInfo()
            var capture: [CaptureDevice] = []
            var playbackOnly: [Int: String] = [:]
            for device in control.pcmDevices() {
                if let pcm = control.pcmInfo(device: device, capture: true) {
                    capture.append(
                        CaptureDevice(
                            number: device, name: pcm.name, subdevicesAvailable: pcm.subdevicesAvailable,
                            subdevicesTotal: pcm.subdevicesTotal))
                } else if let pcm = control.pcmInfo(device: device, capture: false) {
                    playbackOnly[device] = pcm.name
                }
            }
            return ALSACard(
                index: number, id: info?.id ?? sysfsID(number), name: info?.name ?? "",
                capture: capture, playbackOnly: playbackOnly, controlError: nil)
        } catch {
            // Without the control interface the device nodes still tell which capture PCMs exist.
            let prefix = "pcmC\(number)D"
            let devices = sysfs.compactMap { entry -> Int? in
                guard entry.hasPrefix(prefix), entry.hasSuffix("c") else { return nil }
                return Int(entry.dropFirst(prefix.count).dropLast())
            }
            return ALSACard(
                index: number, id: sysfsID(number), name: "",
                capture: devices.sorted().map { CaptureDevice(number: $0, name: "") },
                playbackOnly: [:],
                controlError: "/dev/snd/controlC\(number): \(ALSAText.error(error.code))")
        }
    }

    private static func sysfsID(_ card: Int) -> String {
        let text = (try? String(contentsOfFile: "/sys/class/sound/card\(card)/id", encoding: .utf8)) ?? ""
        let id = text.trimmingWhitespace()
        return id.isEmpty ? "\(card)" : id
    }

    /// The kernel node a capture PCM device is opened through.
    static func captureNode(card: Int, device: Int) -> String {
        "/dev/snd/pcmC\(card)D\(device)c"
    }

    /// The `capture list` entries of this card's capture devices.
    func devices() -> [Device] {
        let group = PhysicalDevice.groupID(deviceLink: "/sys/class/sound/card\(index)/device")
        return capture.map { pcm in
            let node = Self.captureNode(card: index, device: pcm.number)
            var reason: String?
            if let controlError {
                reason = "permission denied: \(controlError)"
            } else if access(node, R_OK | W_OK) != 0 {
                let cause = Errno.current
                reason = cause == .noSuchFile ? "no device node \(node)" : "\(node): \(cause)"
                if cause.isPermission { reason = "permission denied: \(node) (join the 'audio' group)" }
            }
            let description = [name, pcm.name].filter { !$0.isEmpty }.joined(separator: ", ")
            return Device(
                name: ALSAHardwareName.canonical(plug: false, cardID: id, device: pcm.number),
                kind: .audio, api: .alsa, role: "microphone",
                description: description.isEmpty ? "card \(index) device \(pcm.number)" : description,
                accessible: reason == nil, reason: reason, group: group,
                alsa: ALSADetails(
                    cardIndex: index, cardID: id, cardName: name.isEmpty ? nil : name, device: pcm.number,
                    deviceName: pcm.name.isEmpty ? nil : pcm.name,
                    subdevicesAvailable: pcm.subdevicesAvailable, subdevicesTotal: pcm.subdevicesTotal,
                    plugName: ALSAHardwareName.canonical(plug: true, cardID: id, device: pcm.number)))
        }
    }
}
