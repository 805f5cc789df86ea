/// An exact fraction, as FFmpeg's `AVRational` and V4L2's `v4l2_fract`: frame intervals in
/// seconds (1/30), frame rates in frames per second (30000/1001), time bases.
public struct Rational: Hashable, Sendable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The value as a Double; infinity when the denominator is 0.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// The reciprocal: a frame interval of 1001/30000 s is a frame rate of 30000/1001 fps.
    public var inverted: Rational { Rational(denominator, numerator) }

    /// The fraction in lowest terms with a positive denominator.
    public var reduced: Rational {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? Swift.abs(a) : gcd(b, a % b) }
        let divisor = Swift.max(gcd(numerator, denominator), 1)
        let sign = denominator < 0 ? -1 : 1
        return Rational(sign * numerator / divisor, sign * denominator / divisor)
    }

    /// "30000/1001", or "30" when the denominator is 1.
    public var description: String {
        denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }

    /// A rate for people: "30", "29.97", "7.5"; at most two decimals, no trailing zeros.
    public var decimalDescription: String {
        let value = doubleValue
        if value.isInfinite || value.isNaN { return "\(value)" }
        let hundredths = (value * 100).rounded()
        let whole = Int(hundredths / 100)
        let fraction = Int(hundredths) - whole * 100
        if fraction == 0 { return "\(whole)" }
        let digits = fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)")
        return "\(whole).\(digits)"
    }

    /// Orders by value; both denominators must be positive, as every fraction here is.
    public static func < (lhs: Rational, rhs: Rational) -> Bool {
        lhs.numerator * rhs.denominator < rhs.numerator * lhs.denominator
    }

    /// Parses "30", "29.97", "30000/1001" (a frame rate as `-framerate` takes it).
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 else { return nil }
            self.init(n, d)
            return
        }
        guard let value = Double(text), value > 0, value.isFinite, value < 1_000_000 else { return nil }
        if value == value.rounded() {
            self.init(Int(value), 1)
        } else if Swift.abs(value * 1001 / 1000 - (value * 1001 / 1000).rounded()) < 0.01 {
            // 29.97, 59.94, 23.976: the NTSC rates are n*1000/1001.
            self.init(Int((value * 1001 / 1000).rounded()) * 1000, 1001)
        } else {
            self.init(Int((value * 1000).rounded()), 1000)
            self = reduced
        }
    }
}

extension Rational: Comparable {}
