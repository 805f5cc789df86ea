import FoundationEssentials
import Glibc

/// Where a recording goes: a file path or a network URL, the muxer that writes it, and the form of
/// it that may be printed.
///
/// A URL's secrets (an RTMP stream key, an SRT passphrase or stream id, `user:pass@`) appear only
/// in `url`, which goes to FFmpeg; everything shown to the user takes `printable`.
public struct OutputTarget: Hashable, Sendable {
    /// The protocols a recording streams to, with the container each carries.
    public static let streamingSchemes: [String: String] = [
        "rtmp": "flv", "rtmps": "flv", "rtsp": "rtsp", "srt": "mpegts", "udp": "mpegts", "tcp": "mpegts",
    ]
    /// Query parameters whose values are secrets (SRT's `passphrase` and `streamid`, common token
    /// names).
    static let secretParameters: Set<String> = [
        "passphrase", "streamid", "key", "pass", "password", "token", "secret", "auth", "pbkeylen_secret",
    ]

    /// The path or URL as given (a URL's scheme in lower case), for the muxer; may hold secrets.
    public let url: String
    /// The URL's scheme, lower case (`rtmp`, `srt`); nil for a file path.
    public let scheme: String?
    /// `url` with every secret replaced by `***`.
    public let printable: String
    /// The parts of `url` that `printable` hides, longest first, for scrubbing other text.
    public let secrets: [String]

    /// True for a network URL, false for a file path.
    public var isNetwork: Bool { scheme != nil }

    /// Reads `text` as a URL when it starts with `SCHEME://` for a scheme of `streamingSchemes`,
    /// else as a file path (a colon in a file name stays a file name).
    public init(_ text: String) {
        let lower = text.lowercased()
        if let range = lower.firstRange(of: "://"),
            Self.streamingSchemes[String(lower[..<range.lowerBound])] != nil
        {
            let scheme = String(lower[..<range.lowerBound])
            self.scheme = scheme
            // FFmpeg knows its protocols by lower-case names only (`RTMP://` is "not found").
            let normalized = scheme + text.dropFirst(scheme.count)
            url = normalized
            (printable, secrets) = Self.redact(
                normalized, scheme: scheme,
                schemeEnd: normalized.index(normalized.startIndex, offsetBy: scheme.count + 3))
        } else {
            url = text
            scheme = nil
            printable = text
            secrets = []
        }
    }

    /// The host a URL names (without brackets for IPv6); nil for a file.
    public var host: String? {
        guard scheme != nil, let range = url.firstRange(of: "://") else { return nil }
        var authority = url[range.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// The port a URL names, as written (nil: none, or not a number); nil for a file.
    public var port: Int? { portText.flatMap { Int($0) } }

    /// The text after the host's colon, if any.
    private var portText: String? {
        guard scheme != nil, let range = url.firstRange(of: "://") else { return nil }
        var authority = url[range.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            authority = authority[authority.index(after: close)...]
        }
        guard let colon = authority.firstIndex(of: ":") else { return nil }
        return String(authority[authority.index(after: colon)...])
    }

    /// Why the URL cannot be streamed to as written, before anything is opened; nil when it can:
    /// no host, a port that is no port, an SRT/UDP/TCP URL without one, an SRT passphrase of the
    /// wrong length.
    public var problem: String? {
        guard let scheme else { return nil }
        if host?.isEmpty ?? true { return "the URL names no host (\(scheme)://HOST:PORT/...)" }
        if let text = portText {
            guard let port = Int(text), (1...65535).contains(port) else {
                return "'\(text)' is no port; ports go from 1 to 65535"
            }
        } else if ["srt", "udp", "tcp"].contains(scheme) {
            return "\(scheme):// needs a port (\(scheme)://HOST:PORT)"
        }
        if scheme == "srt", let query = url.firstIndex(of: "?") {
            for pair in url[url.index(after: query)...].split(separator: "&")
            where pair.lowercased().hasPrefix("passphrase=") {
                let value = pair.dropFirst("passphrase=".count)
                if !(10...79).contains(value.count) {
                    return "an SRT passphrase has 10 to 79 characters, not \(value.count)"
                }
            }
        }
        return nil
    }

    /// The muxer a URL implies (`flv` for RTMP, `rtsp` for RTSP, `mpegts` for SRT, UDP and TCP); nil for a file,
    /// whose extension decides.
    public var impliedMuxer: String? { scheme.flatMap { Self.streamingSchemes[$0] } }

    /// `text` with every secret of this target replaced by `***`, for FFmpeg's own messages.
    /// Secrets shorter than three characters are hidden only inside the whole URL: replaced
    /// anywhere, they would shred the words around them.
    public func scrub(_ text: String) -> String {
        var result = text.replacing(url, with: printable)
        for secret in secrets where secret.count >= 3 { result = result.replacing(secret, with: "***") }
        return result
    }

    /// Splits `text` into what may be shown and the secrets: the user info before `@` (for RTSP
    /// its password only), RTMP's stream key (the path after the application, the first path
    /// component), and the values of secret query parameters.
    private static func redact(_ text: String, scheme: String, schemeEnd: String.Index) -> (String, [String]) {
        var secrets: [String] = []
        var rest = text[schemeEnd...]
        let head = text[..<schemeEnd]
        // The authority ends at the first '/', '?' or '#'.
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") {
            // An RTSP server's user names the camera's account, which is what tells a log's
            // lines apart (rtsp://door:***@); elsewhere the user info is often a token.
            let info = authority[..<at]
            if scheme == "rtsp", let colon = info.firstIndex(of: ":") {
                secrets.append(String(info[info.index(after: colon)...]))
                authority = info[...colon] + "***" + authority[at...]
            } else {
                secrets.append(String(info))
                authority = "***" + authority[at...]
            }
        }
        let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
        var path = String(rest[..<queryStart])
        var query = String(rest[queryStart...])
        if scheme.hasPrefix("rtmp") {
            // rtmp://host/APP/KEY: everything after the application is the key.
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            if components.count > 2 {
                let key = components[2...].joined(separator: "/")
                if !key.isEmpty {
                    secrets.append(key)
                    path = "/" + components[1] + "/***"
                }
            }
        }
        if !query.isEmpty {
            var parts: [String] = []
            for pair in query.dropFirst().split(separator: "&", omittingEmptySubsequences: false) {
                let equals = pair.firstIndex(of: "=")
                let name = equals.map { String(pair[..<$0]) } ?? String(pair)
                if let equals, secretParameters.contains(name.lowercased()) || scheme.hasPrefix("rtmp") {
                    let value = String(pair[pair.index(after: equals)...])
                    if !value.isEmpty { secrets.append(value) }
                    parts.append(name + "=***")
                } else {
                    parts.append(String(pair))
                }
            }
            query = "?" + parts.joined(separator: "&")
        }
        secrets.sort { $0.count > $1.count }
        return (head + authority + path + query, secrets)
    }
}
