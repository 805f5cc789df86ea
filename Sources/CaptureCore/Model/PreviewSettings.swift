/// What the preview server serves while a recording runs, and where: a live picture (multipart
/// MJPEG), the latest picture, the progress numbers as JSON, and a small page showing them.
///
/// A value; the session's `PreviewServer` listens on `host`:`port` (IPv4) from before any device
/// opens until the recording has ended.
public struct PreviewSettings: Sendable, Hashable {
    /// The IPv4 address listened on, dotted (`127.0.0.1`, `0.0.0.0` for every interface).
    public var host: String
    /// The TCP port, 1-65535.
    public var port: Int
    /// Pictures per second served at most (0.1-60); a camera's frames are taken on that grid of
    /// their capture times, so the pictures come at this rate whatever the camera's own.
    public var rate: Double
    /// Pictures the recorder encodes for the preview are scaled down, keeping their shape, to at
    /// most this many pixels wide and (when set) high; never enlarged. An MJPEG camera's own
    /// pictures are served as they came, at the camera's size.
    public var maxWidth: Int
    public var maxHeight: Int?
    /// A secret every request must carry (`Authorization: Bearer TOKEN` or `?token=TOKEN`);
    /// required for an address other than loopback. Never shown in messages or summaries.
    public var token: String?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, rate: Double = 5, maxWidth: Int = 640, maxHeight: Int? = nil,
        token: String? = nil
    ) {
        self.host = host
        self.port = port
        self.rate = rate
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.token = token
    }

    /// `host:port` as given, for messages: the token never appears in it.
    public var address: String { "\(host):\(port)" }

    /// True for an address only this machine reaches (127.0.0.0/8).
    public var isLoopback: Bool { host.hasPrefix("127.") }

    /// Reads `HOST:PORT`, `:PORT` or `PORT` (host 127.0.0.1), `localhost` as 127.0.0.1.
    ///
    /// - Returns: nil unless the host is a dotted IPv4 address (or `localhost`) and the port a
    ///   number from 1 to 65535.
    public static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let host: Substring
        let port: Substring
        switch parts.count {
        case 1: (host, port) = ("127.0.0.1", parts[0])
        case 2: (host, port) = (parts[0].isEmpty ? "127.0.0.1" : parts[0], parts[1])
        default: return nil
        }
        guard let number = Int(port), (1...65535).contains(number) else { return nil }
        if host == "localhost" { return ("127.0.0.1", number) }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ Int($0).map { (0...255).contains($0) } == true && $0.count <= 3 })
        else { return nil }
        return (String(host), number)
    }
}
