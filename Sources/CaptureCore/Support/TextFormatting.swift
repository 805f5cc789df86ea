import Glibc

// String calls with full Foundation's behaviour, on the C library and the standard library: capture
// links FoundationEssentials only, since full Foundation brings ICU and its 34 MB of data, which
// every run maps and partly touches.

extension String {
    /// Numbers formatted by C's `vsnprintf(3)`, as `String(cFormat:)` does: `"%.1f"`, `"%08x"`,
    /// `"%+.3f"`.
    ///
    /// Numeric conversions only (a Swift `String` is no C string). capture never calls
    /// `setlocale`, so the C locale applies: a point before the decimals, as in the JSON.
    package init(cFormat format: String, _ arguments: any CVarArg...) {
        let length = withVaList(arguments) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else {
            self = ""
            return
        }
        var bytes = [CChar](repeating: 0, count: Int(length) + 1)
        _ = withVaList(arguments) { list in
            bytes.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, list) }
        }
        self = String(decoding: bytes.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The text cut or padded with spaces to `length` characters, as
    /// `padding(toLength:withPad: " ", startingAt: 0)` does for the ASCII labels it is used on.
    package func padded(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }

    /// Compares ignoring case, as `caseInsensitiveCompare(_:) == .orderedSame` does for the
    /// device and control names it is used on.
    package func equalsIgnoringCase(_ other: String) -> Bool { lowercased() == other.lowercased() }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (`trimmingSpaces()`).
    package func trimmingSpaces() -> String {
        String(trimming { $0.isWhitespace && !$0.isNewline })
    }

    /// The text without leading and trailing white space, line ends included
    /// (`trimmingWhitespace()`).
    package func trimmingWhitespace() -> String {
        String(trimming(\.isWhitespace))
    }

    private func trimming(_ isTrimmed: (Character) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
