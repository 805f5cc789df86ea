import FoundationEssentials

extension V4L2Discovery {
    /// The card name and bus info the node at `path` reports now, to tell whether a camera that
    /// came back at a path is the one that left it (a different camera may take the node number).
    ///
    /// Wraps open(2) (non-blocking) and VIDIOC_QUERYCAP.
    /// - Returns: nil when the node cannot be opened or queried (not there yet, or going away).
    static func cardAndBus(path: String) -> (card: String, busInfo: String)? {
        guard let handle = try? V4L2Handle(path: path), let caps = try? handle.queryCapabilities() else { return nil }
        return (decodeCString(caps.card), decodeCString(caps.bus_info))
    }
}
