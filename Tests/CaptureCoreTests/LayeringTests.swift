import Foundation
import Testing

/// CaptureCore's folders are layers: a file names types of its own folder and of the folders
/// below it, never of one above. Read from the sources, so a new reach-up fails the suite.
@Suite struct LayeringTests {
    /// The folders of Sources/CaptureCore, lowest first: threads, clocks and logs; shared values
    /// and errors; devices, their modes and controls; FFmpeg's objects; the outputs; the plan;
    /// the readers; the preview server; the session that ties them; the snapshot and the meter
    /// beside it.
    static let order = [
        "Support", "Model", "Devices", "Modes", "Controls", "Media", "Outputs", "Planning", "Inputs", "Serve",
        "Session", "Snapshot", "Meter",
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/CaptureCore").standardized

    /// Each Swift file under the sources: its folder and its text.
    static func files() throws -> [(name: String, folder: String, text: String)] {
        let names = try #require(FileManager.default.subpaths(atPath: sources.path))
        return try names.filter { $0.hasSuffix(".swift") }.sorted().map {
            let folder = $0.split(separator: "/").count > 1 ? String($0.split(separator: "/")[0]) : ""
            return ($0, folder, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// "FILE names TYPE of FOLDER" for every type a file names from a folder above its own.
    static func reachesUp(_ files: [(name: String, folder: String, text: String)]) throws -> [String] {
        // Types declared at the top level of a file (no indentation), and where.
        let attributes = #"(?:@\w+(?:\([^)]*\))?\s+)*"#
        let modifiers = #"(?:(?:public|internal|private|fileprivate|package|final|indirect|nonisolated)\s+)*"#
        let kind = #"(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)"#
        let declaration = try Regex("^" + attributes + modifiers + kind).anchorsMatchLineEndings()
        var owner: [String: String] = [:]
        for file in files {
            for match in file.text.matches(of: declaration) {
                if let name = match.output[1].substring { owner[String(name)] = file.folder }
            }
        }
        var found: [String] = []
        for file in files {
            guard let level = order.firstIndex(of: file.folder) else { continue }
            // Comments may name anything; `Swift.Encoder` is the standard library's.
            let code = file.text.replacing(/(^|\s)\/\/.*/.anchorsMatchLineEndings(), with: "")
                .replacing(/Swift\.\w+/, with: "")
            let named = Set(code.matches(of: /\b[A-Z]\w*\b/).map { String($0.output) })
            for type in named.sorted() {
                guard let folder = owner[type], let above = order.firstIndex(of: folder), above > level else {
                    continue
                }
                found.append("\(file.name) names \(type) of \(folder)")
            }
        }
        return found
    }

    @Test func everyFolderHasItsPlace() throws {
        let folders = Set(try Self.files().map(\.folder))
        #expect(folders.subtracting(Self.order).isEmpty, "a folder (or a file outside one) not in the order")
        #expect(Set(Self.order).subtracting(folders).isEmpty)
    }

    @Test func noFolderNamesATypeOfOneAbove() throws {
        let files = try Self.files()
        #expect(files.count > 100)
        #expect(try Self.reachesUp(files) == [])
    }

    /// The scan itself finds a reach-up, and not one that sits in a comment.
    @Test func theScanFindsAReachUp() throws {
        let files = [
            (name: "Model/A.swift", folder: "Model", text: "struct Low {\n    var high: High // High is above\n}\n"),
            (name: "Session/B.swift", folder: "Session", text: "final class High {\n    var low: Low?\n}\n"),
            (name: "Model/C.swift", folder: "Model", text: "/// Used by `High`.\nenum Other {}  // High\n"),
        ]
        #expect(try Self.reachesUp(files) == ["Model/A.swift names High of Session"])
    }
}
