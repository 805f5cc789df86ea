/// What one network output of a recording sent and what happened to its connection: an entry of
/// the JSON summary's `streams` (snake_case keys).
public struct StreamReport: Codable, Hashable, Sendable {
    /// The URL with its secrets replaced by `***`.
    public var url: String
    /// The muxer: `flv`, `mpegts`.
    public var container: String
    /// Bytes sent, over every connection.
    public var bytes: Int64
    /// Packets the server took.
    public var packetsSent: Int
    /// Packets never sent: while disconnected, past the bounded backlog, or before the keyframe a
    /// reconnected stream resumes at.
    public var packetsDropped: Int
    /// Connections made again after one was lost.
    public var reconnects: Int
    /// Seconds without a connection, summed.
    public var secondsDisconnected: Double
    /// `finished` (trailer sent), `disconnected` (lost at the end, still trying), or `lost` (it
    /// could not reconnect within the reconnect timeout).
    public var state: String
    /// Why the last connection broke, if one did.
    public var error: String?
}
