/// Lengths of time as the command line takes them: `90` (seconds), `10m`, `1h`, `1h30m`, `1.5h`,
/// `45s`.
public enum DurationValue {
    /// The longest length an option takes, in seconds (about 31 years, as `--duration`): beyond
    /// it a time in microseconds no longer fits the 64-bit clock's arithmetic.
    public static let longest = 1e9

    /// Seconds in `text`: numbers, each followed by `h`, `m` or `s` (hours, then minutes, then
    /// seconds, each at most once), or one bare number of seconds. Decimals are allowed.
    ///
    /// - Returns: the length in seconds, above zero; nil for anything else (`0`, `-5`, `10x`,
    ///   `30m1h`, `1h1h`, an empty string).
    public static func seconds(_ text: String) -> Double? {
        if let bare = Double(text), bare.isFinite {
            return bare > 0 && text.allSatisfy({ $0.isNumber || $0 == "." }) ? bare : nil
        }
        let units: [(Character, Double)] = [("h", 3600), ("m", 60), ("s", 1)]
        var next = 0
        var total = 0.0
        var digits = ""
        for c in text.lowercased() {
            if c.isNumber || c == "." {
                digits.append(c)
                continue
            }
            guard let position = units[next...].firstIndex(where: { $0.0 == c }), let value = Double(digits),
                value.isFinite
            else { return nil }
            total += value * units[position].1
            next = position + 1
            digits = ""
        }
        guard digits.isEmpty, total > 0, total.isFinite else { return nil }
        return total
    }

    /// `seconds` as a message quotes a length the user gave: whole numbers without a point
    /// (`5`), others with the digits they need (`0.01`, `1.25`), never rounded to a tenth.
    public static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}

/// Amounts of storage as the command line takes them: `500M`, `2G`, `750k`, `1048576` (bytes).
///
/// `k`, `M`, `G`, `T` (either case, with or without a trailing `iB`) count in powers of 1024, as
/// `du -h` and `split -b` do; `kB`, `MB`, `GB`, `TB` in powers of 1000; `B` or nothing, bytes.
public enum ByteSize {
    /// Bytes in `text`.
    ///
    /// - Returns: a whole number of bytes above zero (fractions round down: `1.5k` is 1536); nil
    ///   for anything else (`0`, `-1M`, `5X`, `M`, an empty string, more than 2^62 bytes).
    public static func bytes(_ text: String) -> Int64? {
        let number = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(number.count).lowercased()
        let powers = ["": 0, "b": 0, "k": 1, "m": 2, "g": 3, "t": 4]
        let factor: Double
        if let power = powers[unit] {
            factor = pow1024(power)
        } else if unit.hasSuffix("ib"), let power = powers[String(unit.dropLast(2))], power > 0 {
            factor = pow1024(power)
        } else if unit.count == 2, unit.hasSuffix("b"), let power = powers[String(unit.dropLast())], power > 0 {
            factor = (0..<power).reduce(1.0) { value, _ in value * 1000 }
        } else {
            return nil
        }
        guard !number.isEmpty, let value = Double(number), value > 0 else { return nil }
        let bytes = (value * factor).rounded(.down)
        guard bytes >= 1, bytes <= Double(Int64(1) << 62) else { return nil }
        return Int64(bytes)
    }

    private static func pow1024(_ power: Int) -> Double { (0..<power).reduce(1.0) { value, _ in value * 1024 } }
}
