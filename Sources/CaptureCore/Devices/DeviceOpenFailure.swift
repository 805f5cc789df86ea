extension CaptureError {
    /// The error for a device that could not be opened or used because of `errno`, whichever
    /// library reported it (open(2) and ioctls on a camera's node, libasound, FFmpeg's inputs):
    /// busy (75) naming the processes that hold its node, permission denied (77) naming the group
    /// to join, or not found (66) for a device that is not there (never was, or was unplugged).
    ///
    /// - Parameters:
    ///   - device: the device; a camera is named by its node, a microphone by its name.
    ///   - hint: said with "not found" (an ALSA PCM gets libasound's own words when nil).
    /// - Returns: nil for any other errno, which the caller words in its own terms.
    static func opening(_ device: Device, failedWith errno: Errno?, hint: OptionText? = nil) -> CaptureError? {
        let node = device.v4l2?.path ?? device.name
        switch errno {
        case .busy:
            var holderNode: String?
            if device.api == .v4l2 {
                holderNode = node
            } else if device.api == .alsa, let card = device.alsa?.cardIndex, let number = device.alsa?.device {
                holderNode = ALSACard.captureNode(card: card, device: number)
            }
            let holders = holderNode.map { ALSAHolders.describe(node: $0) } ?? []
            return .busy(device: node, holder: holders.isEmpty ? nil : holders.joined(separator: ", "))
        case .permissionDenied, .notPermitted:
            let group = device.v4l2.flatMap { V4L2Discovery.groupName(path: $0.path) }
            return .permissionDenied(device: node, group: group ?? (device.kind == .video ? "video" : "audio"))
        case .noSuchFile, .noSuchDevice, .noSuchDeviceOrAddress:
            guard device.api == .alsa else { return .deviceNotFound(device: device.name, valid: [], hint: hint) }
            return .deviceNotFound(
                device: device.name, valid: ALSADiscovery.capturePCMs().map(\.name),
                hint: hint ?? "ALSA cannot open it (\(errno!))")
        default:
            return nil
        }
    }
}
