/// What the pre-roll of event clips held at the end of a recording: seconds from its first
/// keyframe to its newest packet, and bytes of encoded packets (the memory it takes).
public struct PreRollReport: Codable, Hashable, Sendable {
    public var seconds: Double
    public var bytes: Int64

    public init(seconds: Double, bytes: Int64) {
        self.seconds = seconds
        self.bytes = bytes
    }
}
