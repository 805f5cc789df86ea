internal import CFFmpeg
import Dispatch
import FoundationEssentials
import Glibc

/// One network output of a recording (an RTMP or SRT stream), fed copies of the packets the
/// recording writes, with a writer thread of its own that owns the connection.
///
/// The recording loop calls `send` for every packet; `send` never blocks on the network: it
/// queues a new reference to the packet (`av_packet_ref`, the payload is shared) when the stream
/// is connected and its backlog has room, and otherwise drops and counts it. A connection that
/// breaks is made again with backoff (1, 2, 4 ... 30 s) until `reconnectTimeout` has passed since
/// it broke; the stream then resumes at the next keyframe. Nothing of this reaches the recording's
/// file or its loop: each output has its own fate.
///
/// Threads: `addStream`, `connect`, `start`, `send`, `takeEvents`, `lostReason` and `finish` are
/// called by the recording loop's thread; the writer thread is private. Shared state is under
/// `lock`.
final class StreamOutput: @unchecked Sendable {
    /// Limits for one output.
    struct Settings {
        /// Seconds to connect and get the server's answer.
        var connectTimeout: Double = 5
        /// Seconds to keep trying after a connection broke.
        var reconnectTimeout: Double = 60
        /// Seconds a write may block before the connection counts as broken.
        var writeTimeout: Double = 5
        /// The backlog's bounds: packets held for a slow connection beyond these are dropped.
        var backlogBytes = 4 << 20
        var backlogPackets = 600
    }

    let target: OutputTarget
    let formatName: String
    let settings: Settings
    private(set) var parameters: [StreamParameters] = []

    private let deadline = NetworkDeadline()
    private let lock = Condition()
    private let done = DispatchSemaphore(value: 0)
    /// True once the writer thread runs.
    private var writing = false
    /// True once the loop gave it a packet.
    private(set) var received = false
    /// The open connection; touched by the writer thread only once it runs.
    private var muxer: NetworkMuxer?

    // Under `lock`.
    private enum Phase { case connected, disconnected, lost }
    private var phase = Phase.disconnected
    private var backlog: [(packet: Packet, stream: Int)] = []
    private var backlogBytes = 0
    private var finishing = false
    private var awaitingKeyframe = false
    /// After resuming at a keyframe: audio before it (microseconds), which the encoder's delay
    /// sends ahead of the keyframe, is dropped too, so the stream's audio and video start together.
    private var resumedAt: Int64?
    /// Set while packets are dropped for a full backlog, so that it is said once per episode.
    private var slow = false
    private var events: [String] = []
    private var bytesBefore: Int64 = 0
    private var bytesNow: Int64 = 0
    private var sent = 0
    private var dropped = 0
    private var reconnects = 0
    private var disconnectedSeconds = 0.0
    private var disconnectedSince: Int64?
    private var lastError: String?
    /// Why the last attempt to reconnect failed.
    private var lastAttemptError: String?

    init(target: OutputTarget, formatName: String, settings: Settings) {
        self.target = target
        self.formatName = formatName
        self.settings = settings
    }

    /// Adds a stream fed by `source`: an encoder, or packets copied from an input as they are
    /// (`VideoCodec.copy`); in the same order as for the file, so the indices match.
    ///
    /// - Returns: the stream's index.
    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        switch source.feed {
        case .encoder(let encoder):
            parameters.append(try StreamParameters(encoder: encoder))
        case .copy(let input, let stream, let timeBase):
            parameters.append(try StreamParameters(copying: input, stream: stream, timeBase: timeBase.av))
        }
        return parameters.count - 1
    }

    /// True when the muxer wants codec headers in extradata (FLV does, MPEG-TS does not).
    static func wantsGlobalHeader(formatName: String) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Connects and sends the header, on the caller's thread, within `connectTimeout`; `stop`
    /// (raised by a stop request) ends the attempt at once.
    ///
    /// - Throws: `CaptureError.unreachable` (exit 69) naming the printable URL and the cause.
    func connect(stop: InterruptFlag) throws(CaptureError) {
        // FFmpeg's RTMP reports an unknown host as a bare I/O error; asking first names the cause.
        if let host = target.host, !host.isEmpty {
            var found: UnsafeMutablePointer<addrinfo>?
            let code = getaddrinfo(host, nil, nil, &found)
            if let found { freeaddrinfo(found) }
            if code != 0 {
                let why = String(cString: gai_strerror(code))
                throw .unreachable(subject: target.printable, reason: "host not found (\(why)); check the name")
            }
        }
        do {
            muxer = try deadline.linking(stop) { () throws(FFmpegError) in try open(timeout: settings.connectTimeout) }
            lock.withLock { phase = .connected }
        } catch {
            if deadline.isStopped { throw .failed("\(target.printable): stopped while connecting") }
            throw .unreachable(subject: target.printable, reason: cause(of: error, timeout: settings.connectTimeout))
        }
    }

    /// Starts the writer thread; call after `connect`.
    func start() {
        writing = true
        DetachedThread.start(name: "capture stream") { [self] in run() }
    }

    /// Queues a new reference to `packet` for stream `index`, in the time base the stream was
    /// added with; or drops and counts it (disconnected, backlog full, waiting for a keyframe).
    /// Never blocks on the network; the caller keeps `packet`.
    func send(_ packet: Packet, stream index: Int) {
        received = true
        let isVideo = parameters[index].isVideo
        let hasVideo = parameters.contains { $0.isVideo }
        lock.withLock {
            guard phase == .connected, !finishing else {
                dropped += 1
                return
            }
            let time = packet.pts.map {
                Rescale.rescale($0, from: Rational(parameters[index].timeBase), to: Rescale.microsecond)
            }
            if awaitingKeyframe {
                if hasVideo && !(isVideo && packet.isKeyframe) {
                    dropped += 1
                    return
                }
                awaitingKeyframe = false
                resumedAt = hasVideo ? time : nil
            }
            if !isVideo, let resumedAt {
                if let time, time < resumedAt {
                    dropped += 1
                    return
                }
                self.resumedAt = nil
            }
            if backlog.count >= settings.backlogPackets || backlogBytes + packet.size > settings.backlogBytes {
                // The connection is slower than the stream: what is queued goes out, then the
                // stream picks up at a keyframe, as the decoder needs.
                dropped += 1
                if !slow {
                    slow = true
                    events.append(
                        "\(target.printable): the connection takes less than the stream sends (or the server stopped "
                            + "reading); dropping packets until it catches up")
                }
                awaitingKeyframe = hasVideo
                return
            }
            guard let copy = try? Packet(referencing: packet) else {
                dropped += 1
                return
            }
            slow = false
            backlog.append((copy, index))
            backlogBytes += copy.size
            lock.signal()
        }
    }

    /// Lines for the user about the connection (lost, reconnected, given up) since the last call.
    func takeEvents() -> [String] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }

    /// Why the stream ended for good, once it could not reconnect in time; nil while it lives.
    var lostReason: String? {
        lock.withLock { phase == .lost ? (lastError ?? "connection lost") : nil }
    }

    /// Bytes sent so far, over every connection.
    var bytesSent: Int64 { lock.withLock { bytesBefore + bytesNow } }

    /// Sends what is queued, the trailer, and closes; waits `timeout` seconds at most, then cuts
    /// the connection. Idempotent.
    ///
    /// - Returns: the output's report for the summary.
    func finish(timeout: Double = 5) -> StreamReport {
        let connected = lock.withLock {
            finishing = true
            lock.broadcast()
            return phase == .connected
        }
        // Nothing to send while the connection is down: an attempt to reconnect ends now.
        if !connected { deadline.abort() }
        if writing {
            if done.wait(timeout: .now() + timeout) == .timedOut {
                deadline.abort()
                done.wait()
            }
            writing = false
        } else if let muxer {
            try? muxer.finish(trailer: true, timeout: timeout)
        }
        return lock.withLock {
            let now = NetworkDeadline.now()
            let since = disconnectedSince.map { Double(now - $0) / 1e6 } ?? 0
            let state = phase == .lost ? "lost" : phase == .connected ? "finished" : "disconnected"
            return StreamReport(
                url: target.printable, container: formatName, bytes: bytesBefore + bytesNow, packetsSent: sent,
                packetsDropped: dropped + backlog.count, reconnects: reconnects,
                secondsDisconnected: ((disconnectedSeconds + since) * 1000).rounded() / 1000, state: state,
                error: lastError)
        }
    }

    // MARK: - The writer thread

    private func run() {
        defer { done.signal() }
        while true {
            lock.lock()
            while backlog.isEmpty && !finishing { _ = lock.wait(until: Date(timeIntervalSinceNow: 0.25)) }
            if backlog.isEmpty {
                lock.unlock()
                break
            }
            let item = backlog.removeFirst()
            backlogBytes -= item.packet.size
            lock.unlock()
            guard let muxer else { break }
            do {
                try muxer.write(item.packet, stream: item.stream, timeout: settings.writeTimeout)
                let bytes = muxer.bytesWritten
                lock.withLock {
                    sent += 1
                    bytesNow = bytes
                }
            } catch {
                if deadline.isAborted { break }
                lose(cause(of: error, timeout: settings.writeTimeout))
                if !reconnect() { break }
            }
        }
        if let muxer, lock.withLock({ phase == .connected }), !deadline.isAborted {
            try? muxer.finish(trailer: true, timeout: 3)
            let bytes = muxer.bytesWritten
            lock.withLock { bytesNow = max(bytesNow, bytes) }
        }
    }

    /// Notes a broken connection: what was queued is dropped, the muxer closed without a trailer.
    private func lose(_ reason: String) {
        lock.withLock {
            phase = .disconnected
            disconnectedSince = NetworkDeadline.now()
            lastError = reason
            dropped += backlog.count
            backlog.removeAll()
            backlogBytes = 0
            bytesBefore += bytesNow
            bytesNow = 0
            events.append(
                "\(target.printable): connection lost (\(reason))"
                    + (settings.reconnectTimeout > 0 ? "; reconnecting" : "; not reconnecting (reconnect timeout 0)"))
        }
        try? muxer?.finish(trailer: false, timeout: 0)
        muxer = nil
    }

    /// Tries to connect again with backoff until `reconnectTimeout` has passed since the loss or
    /// the recording finishes.
    ///
    /// - Returns: true when connected again.
    private func reconnect() -> Bool {
        var delay = 1.0
        let since = lock.withLock { disconnectedSince ?? NetworkDeadline.now() }
        while true {
            let elapsed = Double(NetworkDeadline.now() - since) / 1e6
            let remaining = settings.reconnectTimeout - elapsed
            if remaining <= 0 {
                lock.withLock {
                    phase = .lost
                    disconnectedSeconds += elapsed
                    disconnectedSince = nil
                    let last = lastError ?? "connection lost"
                    let tried = lastAttemptError.map { " (last try: \($0))" } ?? ""
                    lastError =
                        "\(last); no reconnect within \(DurationValue.text(settings.reconnectTimeout)) s\(tried)"
                    events.append("\(target.printable): \(lastError!); the stream has ended")
                }
                return false
            }
            let finishingNow = lock.withLock { () -> Bool in
                if !finishing { _ = lock.wait(until: Date(timeIntervalSinceNow: min(delay, remaining))) }
                return finishing
            }
            if finishingNow || deadline.isAborted { return false }
            do {
                let attempt = min(settings.connectTimeout, max(0.5, remaining))
                muxer = try open(timeout: attempt)
                lock.withLock {
                    phase = .connected
                    awaitingKeyframe = true
                    reconnects += 1
                    disconnectedSeconds += Double(NetworkDeadline.now() - since) / 1e6
                    disconnectedSince = nil
                    events.append("\(target.printable): reconnected; resuming at the next keyframe")
                }
                return true
            } catch {
                lock.withLock { lastAttemptError = cause(of: error, timeout: settings.connectTimeout) }
            }
            delay = min(delay * 2, 30)
        }
    }

    private func open(timeout: Double) throws(FFmpegError) -> NetworkMuxer {
        let muxer = try NetworkMuxer(url: target.url, formatName: formatName, streams: parameters, deadline: deadline)
        // SRT in live mode drops what is not yet acknowledged when the socket closes: the last
        // half second of the stream. Lingering up to 2 s lets it arrive. Its own connect timeout
        // (3 s unless told, in milliseconds) follows ours.
        var options: [String: String] = [:]
        // RTP interleaved on RTSP's TCP connection: UDP is lost behind NAT, and breaks pictures.
        if target.scheme == "rtsp" { options = ["rtsp_transport": "tcp"] }
        if target.scheme == "srt" {
            Self.quietSRT
            options = ["linger": "2", "connect_timeout": "\(max(1, Int(timeout * 1000)))"]
        }
        try muxer.open(url: target.url, options: options, timeout: timeout)
        return muxer
    }

    /// libsrt prints its warnings (a rejected passphrase, a lost peer) straight to stderr, beside
    /// FFmpeg's log; FFmpeg's SRT protocol reports the failure itself. Its level is set once, to
    /// critical messages only, through `srt_setloglevel` as libavformat loaded it.
    private static let quietSRT: Void = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "srt_setloglevel") else { return }
        let setLevel = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
        setLevel(2)  // LOG_CRIT
    }()

    /// `StreamFailure.cause`. RTSP reports a reply our deadline cut off as invalid data, so
    /// there a call the deadline failed timed out whatever it says; elsewhere the protocol's own
    /// error says more (a TLS handshake a plain server never answers).
    private func cause(of error: FFmpegError, timeout: Double) -> String {
        let expired = error.code == CFFmpeg_AVERROR_EXIT || (target.scheme == "rtsp" && deadline.didExpire)
        let timedOut = expired && !deadline.isAborted
        return StreamFailure.cause(of: error, target: target, timeout: timeout, timedOut: timedOut)
    }
}
