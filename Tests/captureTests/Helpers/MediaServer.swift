import Foundation

/// A real RTMP server for the streaming tests: nginx with Debian's RTMP module
/// (`libnginx-mod-rtmp`), run in the foreground from a configuration of the test's own (no
/// daemon, pid file and logs in the scratch folder, on a free port of 127.0.0.1), never the
/// system's service. `stop` and `start` again keep the port, as a server restarting does.
///
/// RTMPS as nginx-rtmp deployments serve it: nginx's stream module (`libnginx-mod-stream`) ends
/// TLS on `tlsPort`, with a self-signed certificate made by `openssl` for the test, and passes the
/// plain RTMP on to `port`.
final class MediaServer: @unchecked Sendable {
    let port: Int
    let tlsPort: Int
    /// The HTTP port of the publish check (`on_publish`) of application `secure`.
    let httpPort: Int
    /// The one stream key application `secure` takes; nginx refuses any other with 403.
    static let goodKey = "g00dStreamKey"
    let scratch: RecordScratch
    private var process: ChildProcess?
    private var starts = 0

    /// The RTMP module as Debian installs it.
    static let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
    /// nginx's TCP proxy with TLS, as Debian installs it.
    static let streamModule = "/usr/lib/nginx/modules/ngx_stream_module.so"

    init(in scratch: RecordScratch) throws {
        self.scratch = scratch
        port = try FreePort.tcp()
        var tls = try FreePort.tcp()
        while tls == port { tls = try FreePort.tcp() }
        tlsPort = tls
        var http = try FreePort.tcp()
        while http == port || http == tls { http = try FreePort.tcp() }
        httpPort = http
        let folder = scratch.path("nginx")
        try FileManager.default.createDirectory(atPath: folder + "/received", withIntermediateDirectories: true)
        let certificate = try ChildProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-keyout", "\(folder)/key.pem", "-out", "\(folder)/cert.pem",
            ])
        guard certificate.status == 0 else { throw ServerFailed(what: "openssl: \(certificate.stderr)") }
        let configuration = """
            load_module \(Self.module);
            load_module \(Self.streamModule);
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log info;
            events { worker_connections 64; }
            stream {
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(folder)/cert.pem;
                    ssl_certificate_key \(folder)/key.pem;
                    proxy_pass 127.0.0.1:\(port);
                }
            }
            http {
                access_log off;
                server {
                    listen 127.0.0.1:\(httpPort);
                    location /publish {
                        if ($arg_name = "\(Self.goodKey)") { return 200; }
                        return 403;
                    }
                }
            }
            rtmp {
                server {
                    listen 127.0.0.1:\(port);
                    # Stream keys checked as public servers do: nginx asks an HTTP endpoint.
                    application secure {
                        live on;
                        notify_method get;
                        on_publish http://127.0.0.1:\(httpPort)/publish;
                    }
                    application live {
                        live on;
                        wait_key on;
                        wait_video on;
                        record all;
                        record_path \(folder)/received;
                        record_unique off;
                    }
                }
            }
            """
        try configuration.write(toFile: "\(folder)/nginx.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit { stop() }

    /// What the server received for stream `key`, as it wrote it (`record all`): the oracle of
    /// what was pushed.
    func received(key: String) -> String { scratch.path("nginx/received/\(key).flv") }

    /// `rtmp://127.0.0.1:PORT/APP/KEY`.
    func url(app: String = "live", key: String) -> String { "rtmp://127.0.0.1:\(port)/\(app)/\(key)" }

    /// `rtmps://127.0.0.1:TLSPORT/APP/KEY`: the same application behind TLS.
    func tlsURL(app: String = "live", key: String) -> String { "rtmps://127.0.0.1:\(tlsPort)/\(app)/\(key)" }

    /// Starts nginx and waits until it accepts connections.
    func start() throws {
        starts += 1
        let folder = scratch.path("nginx")
        let nginx = try ChildProcess.recording(
            ["-c", "\(folder)/nginx.conf", "-p", folder, "-e", "\(folder)/error.log"], program: "/usr/sbin/nginx",
            in: scratch, name: "nginx-\(starts)")
        process = nginx
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if FreePort.accepts(port) && FreePort.accepts(tlsPort) { return }
            if let exit = nginx.wait(timeout: 0) {
                throw ServerFailed(what: "nginx \(exit): \(nginx.stderr)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ServerFailed(what: "nginx did not listen on \(port) within 10 s")
    }

    /// Stops nginx at once (SIGTERM: it closes every connection) and waits for it to exit.
    func stop() {
        guard let process else { return }
        kill(process.pid, SIGTERM)
        if process.wait(timeout: 5) == nil {
            kill(process.pid, SIGKILL)
            process.wait(timeout: 5)
        }
        self.process = nil
    }

    struct ServerFailed: Error, CustomStringConvertible {
        var what: String
        var description: String { what }
    }
}

/// Free ports on 127.0.0.1, as the kernel hands them out to `bind` with port 0.
enum FreePort {
    static func tcp() throws -> Int { try find(type: SOCK_STREAM) }
    static func udp() throws -> Int { try find(type: SOCK_DGRAM) }

    private static func find(type: __socket_type) throws -> Int {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        guard fd >= 0 else { throw MediaServer.ServerFailed(what: "socket: \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw MediaServer.ServerFailed(what: "bind: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// True when something accepts TCP connections on `port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A TCP socket listening on a free port that never accepts: connections complete (the
    /// kernel's backlog) but nothing ever answers, as a hung server does. Closed on deinit.
    final class Silent {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw MediaServer.ServerFailed(what: "listen") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }
}

/// The streaming tests start servers and viewers from the thread that times the recording; a
/// scratch folder is a fixed path, read only, from any thread.
extension RecordScratch: @unchecked Sendable {}
