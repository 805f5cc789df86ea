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
        "rtmp": "flv", "rtmps": "flv", "srt": "mpegts", "udp": "mpegts", "tcp": "mpegts",
    ]
    /// Query parameters whose values are secrets (SRT's `passphrase` and `streamid`, common token
    /// names).
    static let secretParameters: Set<String> = [
        "passphrase", "streamid", "key", "pass", "password", "token", "secret", "auth", "pbkeylen_secret",
    ]

    /// The path or URL as given, for the muxer; may hold secrets.
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
        url = text
        let lower = text.lowercased()
        if let range = lower.firstRange(of: "://"),
            Self.streamingSchemes[String(lower[..<range.lowerBound])] != nil
        {
            let scheme = String(lower[..<range.lowerBound])
            self.scheme = scheme
            (printable, secrets) = Self.redact(text, scheme: scheme, schemeEnd: range.upperBound)
        } else {
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

    /// The muxer a URL implies (`flv` for RTMP, `mpegts` for SRT, UDP and TCP); nil for a file,
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

    /// Splits `text` into what may be shown and the secrets: the user info before `@`, RTMP's
    /// stream key (the path after the application, the first path component), and the values of
    /// secret query parameters.
    private static func redact(_ text: String, scheme: String, schemeEnd: String.Index) -> (String, [String]) {
        var secrets: [String] = []
        var rest = text[schemeEnd...]
        let head = text[..<schemeEnd]
        // The authority ends at the first '/', '?' or '#'.
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") {
            secrets.append(String(authority[..<at]))
            authority = "***" + authority[at...]
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
