import FoundationEssentials
import Glibc

/// The preview's HTTP server: listens on `PreviewSettings.host`:`port` (IPv4, TCP), answers each
/// connection on a thread of its own, and serves what the recording leaves in its `PreviewHub`.
///
/// Made (socket, bind, listen) before any device opens, so an address in use is refused before
/// anything is recorded; `start` starts the accept thread and the JPEG encoder's thread; `stop`
/// closes it all. Nothing it does can hold the recording up: the loop only ever meets the hub,
/// which never waits on a viewer. Thread-safe.
public final class PreviewServer: @unchecked Sendable {
    /// Where it listens and what it serves, as given.
    public let settings: PreviewSettings
    let hub: PreviewHub
    let access: PreviewAccess
    private let listener: Int32
    private let lock = Condition()
    private var connections = 0
    private var stopping = false
    private let encoder: PreviewEncoder

    /// Connections served at once; one more is answered 503 and closed.
    static let maxConnections = 32
    /// Seconds a client has to send its whole request head before it is answered 408.
    static let headTimeout = 5.0
    /// Seconds a write may wait on a client that does not read before the connection is closed.
    static let writeTimeout = 10

    /// Listens at the settings' address (`socket`, `bind`, `listen`); serves nothing before `start`.
    ///
    /// - Throws: `CaptureError.usage` (64) for an address other than loopback without a token;
    ///   `.cannotListen` (73) when the port is in use, the address is not this machine's, or the
    ///   port needs privileges.
    public init(settings: PreviewSettings) throws(CaptureError) {
        if !settings.isLoopback && settings.token == nil {
            throw .usage(
                "\(settings.address): serving the preview beyond this machine needs \(.serveToken), which every "
                    + "request must then carry; or listen on 127.0.0.1")
        }
        if let token = settings.token, token.isEmpty || token.utf8.contains(where: { !(33...126).contains($0) }) {
            throw .usage("\(.serveToken) takes printable characters without spaces")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(address: settings.address, reason: Errno.current.description) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(settings.port).bigEndian)
        inet_pton(AF_INET, settings.host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 || listen(fd, 64) != 0 {
            let error = errno
            close(fd)
            throw .cannotListen(address: settings.address, reason: Self.reason(error))
        }
        listener = fd
        self.settings = settings
        hub = PreviewHub(rate: settings.rate)
        access = PreviewAccess(token: settings.token)
        encoder = PreviewEncoder(hub: hub, maxWidth: settings.maxWidth, maxHeight: settings.maxHeight)
    }

    deinit { close(listener) }

    private static func reason(_ error: Int32) -> String {
        switch error {
        case EADDRINUSE: "the port is in use (another program listens there)"
        case EADDRNOTAVAIL: "the address is not one of this machine's"
        case EACCES: "ports below 1024 need privileges"
        default: String(cString: strerror(error))
        }
    }

    /// The device names the page and `/status.json` show, cameras first.
    public func setDevices(_ names: [String]) { hub.update { $0.devices = names } }

    /// Starts accepting connections and encoding pictures; returns at once.
    public func start() {
        encoder.start()
        DetachedThread.start(name: "preview-accept") { [self] in acceptLoop() }
    }

    /// Stops accepting, ends every connection (a stream's viewers see it end, `/events` gets the
    /// last numbers first), and waits up to a second for their threads.
    public func stop() {
        lock.withLock { stopping = true }
        hub.close()
        shutdown(listener, Int32(SHUT_RDWR))
        let deadline = Date().addingTimeInterval(1)
        lock.withLock {
            while connections > 0 {
                if !lock.wait(until: deadline) { break }
            }
        }
    }

    var isStopping: Bool { lock.withLock { stopping } }

    private func acceptLoop() {
        while !isStopping {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            // Not inherited by a program the process starts (accept4 needs _GNU_SOURCE).
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            Self.setTimeouts(client)
            let admitted = lock.withLock {
                guard connections < Self.maxConnections, !stopping else { return false }
                connections += 1
                return true
            }
            guard admitted else {
                _ = Self.write(client, PreviewResponse.plain(503, "Too many connections").bytes)
                close(client)
                continue
            }
            DetachedThread.start(name: "preview-client") { [self] in
                serve(client)
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
                lock.withLock {
                    connections -= 1
                    lock.broadcast()
                }
            }
        }
    }

    /// Bytes the kernel may hold for a client that does not read (`SO_SNDBUF`; the kernel doubles
    /// it). Left to grow, it took 4 MiB, 30 to 40 s of pictures, before a write even blocked and
    /// `writeTimeout` began: a stalled viewer held its connection that long.
    static let sendBuffer: Int32 = 128 * 1024

    /// Reads a second at most per `recv`, so the head's deadline is kept; a write waits
    /// `writeTimeout` at most, and blocks once `sendBuffer` is full. Pictures go out at once
    /// (`TCP_NODELAY`).
    private static func setTimeouts(_ fd: Int32) {
        var buffer = sendBuffer
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        var read = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &read, socklen_t(MemoryLayout<timeval>.size))
        var write = timeval(tv_sec: writeTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &write, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads the request head, within `headTimeout` and `HTTPRequest.maxHeadBytes`.
    ///
    /// - Returns: the request, or the answer for a client that sent none (400, 408); nil when
    ///   the client went away.
    func readRequest(_ fd: Int32) -> Result<HTTPRequest, PreviewResponse>? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(Self.headTimeout)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return nil }
            if count < 0 {
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return nil }
            } else {
                bytes += chunk[..<count]
                switch HTTPRequest.read(bytes) {
                case .request(let request): return .success(request)
                case .bad(let reason): return .failure(.plain(400, "Bad request: \(reason)"))
                case .incomplete: break
                }
            }
            if Date() >= deadline { return .failure(.plain(408, "Request timeout: no whole request in 5 s")) }
        }
    }

    /// Sends all of `bytes` (`send` with `MSG_NOSIGNAL`: a client gone is an error here, never
    /// SIGPIPE). False when the client went away or stopped reading for `writeTimeout`.
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Ends our side of the connection (`shutdown(SHUT_WR)`) and reads what the client still
    /// sends, for a second and 64 KiB at most, so that closing does not reset the connection
    /// before the client has read the answer.
    static func drain(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var chunk = [UInt8](repeating: 0, count: 4096)
        var left = 65536
        let deadline = Date().addingTimeInterval(1)
        while left > 0 && Date() < deadline {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            left -= count
        }
    }

    /// True when the client closed its side or the connection broke (a `recv` that peeks).
    static func clientLeft(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }
}
