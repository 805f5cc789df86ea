/// Who may ask the preview server for anything: with a token, only requests that carry it, in
/// an `Authorization: Bearer TOKEN` header or a `token` query field; without one, everybody
/// (the server then listens on loopback only).
struct PreviewAccess {
    private let token: [UInt8]?

    init(token: String?) { self.token = token.map { Array($0.utf8) } }

    /// True when `request` may be answered.
    ///
    /// The comparison takes as long whatever the bytes given, so timing the answers tells
    /// nothing of the token but its length at most.
    func allows(_ request: HTTPRequest) -> Bool {
        guard let token else { return true }
        var given: [UInt8]?
        if let header = request.headers["authorization"] {
            let words = header.split(separator: " ", maxSplits: 1)
            if words.count == 2, words[0].lowercased() == "bearer" { given = Array(words[1].utf8) }
        }
        if given == nil, let field = request.query["token"] { given = Array(field.utf8) }
        guard let given else { return false }
        return Self.same(given, token)
    }

    /// Constant-time equality: every byte is compared, whatever differs first.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        if a.count != b.count { difference |= 1 }
        for index in 0..<b.count {
            difference |= (index < a.count ? a[index] : 0) ^ b[index]
        }
        return difference == 0
    }
}
