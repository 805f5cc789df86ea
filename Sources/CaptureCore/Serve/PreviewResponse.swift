/// One whole HTTP answer of the preview server: status, type, body, and the headers every answer
/// carries (no caching, no sniffing, no keep-alive; never a CORS header).
struct PreviewResponse: Error {
    let status: Int
    let contentType: String
    let body: [UInt8]
    var extraHeaders: [String] = []

    static func plain(_ status: Int, _ text: String) -> PreviewResponse {
        PreviewResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
    }

    static let reasons = [
        200: "OK", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
        405: "Method Not Allowed",
        408: "Request Timeout", 409: "Conflict", 503: "Service Unavailable",
    ]

    /// The status line and the headers every answer of the server carries, ending in a blank line.
    static func head(_ status: Int, contentType: String, length: Int?, extra: [String] = []) -> [UInt8] {
        var lines = [
            "HTTP/1.0 \(status) \(reasons[status] ?? "Error")", "Server: capture", "Content-Type: \(contentType)",
            "Cache-Control: no-store, no-cache, must-revalidate", "Pragma: no-cache", "X-Content-Type-Options: nosniff",
            "Connection: close",
        ]
        if let length { lines.append("Content-Length: \(length)") }
        lines += extra
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The answer as sent.
    var bytes: [UInt8] {
        Self.head(status, contentType: contentType, length: body.count, extra: extraHeaders) + body
    }
}
