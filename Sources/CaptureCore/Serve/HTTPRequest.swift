/// One HTTP/1.x request's head as the preview server reads it: method, path, query and headers.
///
/// A value parsed from the bytes a client sent, with the limits a small server needs: a head of
/// at most `maxHeadBytes`, at most `maxHeaders` lines, printable ASCII only. The body, if any, is
/// never read.
struct HTTPRequest: Equatable {
    let method: String
    /// The target's path, percent-decoded (`/stream`).
    let path: String
    /// The query's fields, percent-decoded, the last of a repeated name winning.
    let query: [String: String]
    /// Header names in lower case, values trimmed; the last of a repeated name wins.
    let headers: [String: String]

    /// The most bytes a request head may take, request line and headers with their line ends.
    static let maxHeadBytes = 8192
    static let maxHeaders = 64

    /// What reading a head from `bytes` (everything the client sent so far) gives.
    enum Reading: Equatable {
        /// The head is whole and well formed.
        case request(HTTPRequest)
        /// The head is not whole yet: read more.
        case incomplete
        /// The client sent something that is no request, or too large a one: answer 400.
        case bad(String)
    }

    /// Parses the head at the start of `bytes`.
    static func read(_ bytes: [UInt8]) -> Reading {
        guard let end = headEnd(bytes) else {
            return bytes.count >= maxHeadBytes ? .bad("request head over \(maxHeadBytes) bytes") : .incomplete
        }
        guard end <= maxHeadBytes else { return .bad("request head over \(maxHeadBytes) bytes") }
        // Printable ASCII, tabs and line ends only: anything else is no HTTP request line or header.
        guard bytes[..<end].allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) }) else {
            return .bad("bytes that are not text")
        }
        // Lines split on the bytes: to a String, "\r\n" is one character.
        var lines = bytes[..<end].split(separator: 10, omittingEmptySubsequences: false).map {
            Substring(decoding: $0.last == 13 ? $0.dropLast() : $0, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { return .bad("an empty request") }
        let words = first.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, ["HTTP/1.0", "HTTP/1.1"].contains(words[2]), !words[0].isEmpty,
            words[0].allSatisfy({ $0.isUppercase && $0.isASCII }), words[1].hasPrefix("/")
        else { return .bad("no HTTP/1.x request line") }
        guard lines.count - 1 <= maxHeaders else { return .bad("more than \(maxHeaders) headers") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else { return .bad("a header line without a name and a colon") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces
        }
        let target = words[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = percentDecoded(target[0]) else { return .bad("a path with a broken %-escape") }
        var query: [String: String] = [:]
        if target.count > 1 {
            for field in target[1].split(separator: "&") {
                let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = percentDecoded(pair[0]), let value = percentDecoded(pair.count > 1 ? pair[1] : "")
                else { return .bad("a query with a broken %-escape") }
                query[name] = value
            }
        }
        return .request(HTTPRequest(method: String(words[0]), path: path, query: query, headers: headers))
    }

    /// The index just past the blank line that ends the head (`\r\n\r\n`, or `\n\n` from a
    /// lenient client); nil when it has not come yet.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 10 {
                if index + 1 < bytes.count && bytes[index + 1] == 10 { return index + 2 }
                if index + 2 < bytes.count && bytes[index + 1] == 13 && bytes[index + 2] == 10 { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// `text` with each `%XX` replaced by its byte and `+` by a space; nil for a broken escape or
    /// bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+"): bytes.append(32)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
