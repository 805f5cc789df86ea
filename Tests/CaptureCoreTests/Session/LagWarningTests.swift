import Testing

@testable import CaptureCore

/// A camera's frames dropped late for more than a second on end are told once; drops now and
/// then are not.
@Suite struct LagWarningTests {
    @Test func aRunOfMoreThanASecondIsToldOnce() {
        var lag = LagWarning()
        // Every other frame at 30 fps: 66 ms apart, one run.
        let run = stride(from: Int64(0), through: 1_100_000, by: 66_667).map { $0 }
        #expect(lag.note(Array(run.prefix(10))) == false)
        #expect(lag.note(Array(run.dropFirst(10))) == true)
        #expect(lag.note([1_200_000, 1_250_000, 2_500_000]) == false)
        #expect(lag.warned)
    }

    @Test func pausesOfHalfASecondEndARun() {
        var lag = LagWarning()
        // A drop every 0.6 s for 10 s: jitter, never a run.
        #expect(lag.note(stride(from: Int64(0), through: 10_000_000, by: 600_000).map { $0 }) == false)
        #expect(!lag.warned)
    }
}
