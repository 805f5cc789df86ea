import FoundationEssentials
import Glibc

/// What the preview server answers, by path: the page, the stream, the latest picture, the
/// numbers, the events, the clip trigger. Runs on each connection's own thread.
extension PreviewServer {
    /// The boundary between the stream's parts.
    static let boundary = "capturepreview"

    /// Answers one connection: reads its request, checks the token, serves the path.
    func serve(_ fd: Int32) {
        guard let reading = readRequest(fd) else { return }
        let request: HTTPRequest
        switch reading {
        case .failure(let answer):
            // The rest of what it sent is read and dropped, so the client gets the answer rather
            // than a reset for the bytes left unread.
            if Self.write(fd, answer.bytes) { Self.drain(fd) }
            return
        case .success(let read): request = read
        }
        guard access.allows(request) else {
            var answer = PreviewResponse.plain(401, "Unauthorized: this server needs its token")
            answer.extraHeaders = ["WWW-Authenticate: Bearer"]
            _ = Self.write(fd, answer.bytes)
            return
        }
        let route = (request.path, request.path == "/" ? request.query["action"] : nil)
        if request.method == "POST" && request.path == "/clip" {
            _ = Self.write(fd, clip().bytes)
            return
        }
        guard request.method == "GET" else {
            let known = ["/", "/stream", "/snapshot.jpg", "/status.json", "/events", "/clip"].contains(request.path)
            var answer = PreviewResponse.plain(known ? 405 : 404, known ? "Method not allowed" : "Not found")
            // A 405 says which methods the resource takes (RFC 9110).
            if known { answer.extraHeaders = ["Allow: \(request.path == "/clip" ? "POST" : "GET")"] }
            _ = Self.write(fd, answer.bytes)
            return
        }
        switch route {
        case ("/stream", _), ("/", "stream"): stream(fd)
        case ("/snapshot.jpg", _), ("/", "snapshot"): _ = Self.write(fd, snapshot().bytes)
        case ("/status.json", _): _ = Self.write(fd, status().bytes)
        case ("/events", _): events(fd)
        case ("/", nil):
            let page = PreviewResponse(
                status: 200, contentType: "text/html; charset=utf-8", body: Array(PreviewPage.html.utf8),
                extraHeaders: [
                    "Content-Security-Policy: default-src 'self'; style-src 'unsafe-inline'; "
                        + "script-src 'unsafe-inline'; img-src 'self'"
                ])
            _ = Self.write(fd, page.bytes)
        case ("/clip", _):
            var answer = PreviewResponse.plain(405, "Method not allowed: POST /clip")
            answer.extraHeaders = ["Allow: POST"]
            _ = Self.write(fd, answer.bytes)
        default: _ = Self.write(fd, PreviewResponse.plain(404, "Not found").bytes)
        }
    }

    /// Multipart MJPEG: each picture one part with its type and length, until the client leaves,
    /// stops reading for `writeTimeout`, or the server stops. Pictures the viewer was too slow
    /// for are lost to it (`PreviewHub.queueCapacity`).
    private func stream(_ fd: Int32) {
        let head = PreviewResponse.head(
            200, contentType: "multipart/x-mixed-replace;boundary=\(Self.boundary)", length: nil)
        guard Self.write(fd, head) else { return }
        let viewer = hub.join()
        defer { hub.leave(viewer) }
        while !isStopping {
            guard let picture = hub.next(for: viewer, until: Date().addingTimeInterval(1)) else {
                if hub.closed || Self.clientLeft(fd) { return }
                continue
            }
            let part =
                "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(picture.jpeg.count)\r\n"
                + "X-Picture: \(picture.number)\r\n\r\n"
            guard Self.write(fd, Array(part.utf8) + picture.jpeg + [13, 10]) else { return }
        }
    }

    /// A picture made after the request came (waiting 3 s at most for one), else the latest.
    private func snapshot() -> PreviewResponse {
        guard let picture = hub.snapshot(until: Date().addingTimeInterval(3)) else {
            return .plain(503, "No picture yet: the camera has sent none, or the recording has no camera")
        }
        return PreviewResponse(status: 200, contentType: "image/jpeg", body: picture.jpeg)
    }

    private func status() -> PreviewResponse {
        PreviewResponse(status: 200, contentType: "application/json", body: Array(Self.json(hub.currentStatus).utf8))
    }

    /// Server-sent events: `status` with the numbers each time they change, and each of the
    /// recording's events (`RecordingEvent`) as a message, until the server stops (the last
    /// numbers go out first) or the client leaves.
    private func events(_ fd: Int32) {
        let head = PreviewResponse.head(200, contentType: "text/event-stream", length: nil)
        guard Self.write(fd, head) else { return }
        var version = -1
        var sentEvents = hub.eventCount
        while true {
            let status = hub.statusChange(after: version, until: Date().addingTimeInterval(1))
            var text = ""
            let (events, count) = hub.events(after: sentEvents)
            sentEvents = count
            for event in events { text += "data: \(event)\n\n" }
            if status.version != version {
                version = status.version
                text += "event: status\ndata: \(Self.json(status))\n\n"
            }
            if text.isEmpty { text = ": waiting\n\n" }
            guard Self.write(fd, Array(text.utf8)), !hub.closed else { return }
        }
    }

    private func clip() -> PreviewResponse {
        hub.requestClip() ? .plain(200, "Clip triggered") : .plain(409, "This recording makes no event clips")
    }

    /// One line of JSON: snake_case keys, sorted.
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
