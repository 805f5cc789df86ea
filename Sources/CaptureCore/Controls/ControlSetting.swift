import FoundationEssentials
import Glibc

/// A value to write to a control: a number for integer, boolean, menu, bitmask and button
/// controls, text for string controls.
///
/// Its JSON form is a bare number or a bare string.
public enum ControlValue: Hashable, Sendable, Codable, CustomStringConvertible {
    case integer(Int64)
    case string(String)

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        }
    }

    public var description: String {
        switch self {
        case .integer(let number): "\(number)"
        case .string(let text): "'\(text)'"
        }
    }
}

/// One `NAME=VALUE` as the user typed it (single settings): nothing is checked but the shape.
public struct ControlSetting: Hashable, Sendable, Codable {
    /// The control's name as typed; matched case-insensitively.
    public var name: String
    /// The value as typed: a number, a menu entry's name, `on`/`off`, `-6dB`, `50%`.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Splits `NAME=VALUE` at the first `=`; nil when there is no `=` or no name.
    public init?(parsing text: String) {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let name = text[..<equals].trimmingSpaces()
        guard !name.isEmpty else { return nil }
        self.init(name: name, value: String(text[text.index(after: equals)...]))
    }
}
