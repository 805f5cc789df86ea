import CaptureCore
import FoundationEssentials
import Glibc

/// Prints a value as the documented JSON: snake_case keys, sorted, pretty, slashes unescaped.
func printJSON<T: Encodable>(_ value: T) throws {
    print(try jsonText(value))
}

/// A value as the documented JSON (`printJSON`), as text.
func jsonText<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Prints a value as one line of JSON (snake_case keys, sorted): for events as they happen.
func printJSONLine<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(value)
    print(String(decoding: data, as: UTF8.self))
    // A pipe would otherwise hold the lines until the end.
    flushOutputStreams()
}
