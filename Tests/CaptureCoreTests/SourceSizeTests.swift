import Foundation
import Testing

/// Small files with one purpose, functions that fit on a screen: no file under Sources is longer
/// than 400 lines and no function, initializer or computed property longer than 60. Read from
/// the sources, so a new long one fails the suite.
@Suite struct SourceSizeTests {
    static let fileLimit = 400
    static let functionLimit = 60

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardized

    /// Each Swift file under Sources (every target): its path there and its lines.
    static func files() throws -> [(name: String, lines: [Substring])] {
        let names = try #require(FileManager.default.subpaths(atPath: sources.path))
        return try names.filter { $0.hasSuffix(".swift") }.sorted().map {
            let text = try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            // The newline that ends the last line starts no line of its own.
            if lines.last == "" { lines.removeLast() }
            return ($0, lines)
        }
    }

    /// "FILE:LINE DECLARATION (N lines)" for each body longer than `limit` lines.
    ///
    /// A body runs from its declaration to the first line after it that is a `}` at the
    /// declaration's own indentation (the formatter's layout); a declaration whose body closes
    /// on its own line (`var x: Int { 0 }`) is one line.
    static func longBodies(_ name: String, _ lines: [Substring], limit: Int) throws -> [String] {
        let declaration = try Regex(
            #"^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|class|override|mutating|convenience|final|nonisolated|required)\s+)*(?:func\s|init[?!]?\s*[(<]|deinit\b|(?:var|subscript)\b.*\{\s*$)"#
        )
        var found: [String] = []
        for (index, line) in lines.enumerated() {
            guard let match = try declaration.prefixMatch(in: line) else { continue }
            let indent = match.output[1].substring ?? ""
            if line.contains("{") && line.hasSuffix("}") { continue }
            guard let end = lines[(index + 1)...].firstIndex(where: { $0 == indent + "}" }) else { continue }
            // A protocol's requirement has no body: the `}` found belongs to something after it.
            let body = lines[(index + 1)..<end]
            if body.contains(where: { !$0.isEmpty && !$0.hasPrefix(indent + " ") && !$0.hasPrefix(indent + ")") }) {
                continue
            }
            let count = end - index + 1
            if count > limit {
                found.append("\(name):\(index + 1) \(line.trimmingCharacters(in: .whitespaces)) (\(count) lines)")
            }
        }
        return found
    }

    @Test func noFileIsLongerThanItsLimit() throws {
        let files = try Self.files()
        #expect(files.count > 150)
        let long = files.filter { $0.lines.count > Self.fileLimit }.map { "\($0.name) (\($0.lines.count) lines)" }
        #expect(long == [])
    }

    @Test func noFunctionIsLongerThanItsLimit() throws {
        let long = try Self.files().flatMap { try Self.longBodies($0.name, $0.lines, limit: Self.functionLimit) }
        #expect(long == [])
    }

    /// The scan finds a long function, a long initializer and a long computed property, and
    /// neither a one-line body nor a body that closes at a deeper indentation.
    @Test func theScanFindsLongBodies() throws {
        let body = Array(repeating: "        x += 1", count: 3)
        let text =
            ["enum E {", "    static func f() {"] + body + ["    }", "    init(a: Int) {"] + body + ["    }"]
            + ["    var v: Int {"] + body + ["    }", "    var w: Int { 0 }", "    func g() {", "        if x {"]
            + body + ["        }", "    }", "}"]
        let lines = text.map { Substring($0) }
        let found = try Self.longBodies("E.swift", lines, limit: 4)
        #expect(
            found == [
                "E.swift:2 static func f() { (5 lines)", "E.swift:7 init(a: Int) { (5 lines)",
                "E.swift:12 var v: Int { (5 lines)", "E.swift:18 func g() { (7 lines)",
            ])
        #expect(try Self.longBodies("E.swift", lines, limit: 7) == [])
    }
}
