import Testing

@testable import CaptureCore

@Suite struct RationalTests {
    @Test(arguments: [
        ("30", Rational(30, 1)),
        ("29.97", Rational(30000, 1001)),
        ("59.94", Rational(60000, 1001)),
        ("23.976", Rational(24000, 1001)),
        ("30000/1001", Rational(30000, 1001)),
        ("7.5", Rational(15, 2)),
        ("12.5", Rational(25, 2)),
    ])
    func parsesFrameRates(text: String, expected: Rational) {
        #expect(Rational(parsing: text) == expected)
    }

    @Test(arguments: ["0", "-30", "abc", "30/0", "", "1/", "inf", "nan"])
    func rejectsBadRates(text: String) {
        #expect(Rational(parsing: text) == nil)
    }

    @Test func intervalsBecomeRates() {
        #expect(Rational(1, 30).inverted.decimalDescription == "30")
        #expect(Rational(1001, 30000).inverted.decimalDescription == "29.97")
        #expect(Rational(2, 15).inverted.decimalDescription == "7.5")
        #expect(Rational(1, 5).inverted.decimalDescription == "5")
        #expect(Rational(1001, 24000).inverted.decimalDescription == "23.98")
    }

    @Test func orderAndReduction() {
        #expect(Rational(1, 30) < Rational(1, 25))
        #expect(Rational(60, 2).reduced == Rational(30, 1))
        #expect(Rational(3, -6).reduced == Rational(-1, 2))
    }
}
