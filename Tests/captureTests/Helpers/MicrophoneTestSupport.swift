import Foundation

/// Helpers for the microphone end-to-end tests: a scratch folder, and the JSON a command printed.
enum MicrophoneTestSupport {
    /// A fresh folder under the temporary directory, removed by the caller.
    static func scratchFolder(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("capture-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The JSON object a command printed.
    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw NotAnObject(text: text)
        }
        return object
    }

    struct NotAnObject: Error {
        var text: String
    }
}
