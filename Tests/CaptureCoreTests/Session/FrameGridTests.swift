import Testing

@testable import CaptureCore

/// Cameras at one rate share a frame grid: a frame taken at the moment of the first camera's
/// gets its number, whichever side of a slot boundary of a grid from zero each one's fell.
@Suite struct FrameGridTests {
    static let rate = Rational(30, 1)

    @Test func theFirstCameraOfARateFixesThePhase() {
        let grid = FrameGrid()
        #expect(grid.align(16_000, rate: Self.rate) == 16_000)
        // 17 ms is -16.3 ms on the grid from zero: one slot on, it lies 1 ms from the first.
        #expect(grid.align(-16_333, rate: Self.rate) == 17_000)
        #expect(grid.align(2_000, rate: Self.rate) == 2_000)
        // Another rate has its own.
        #expect(grid.align(-16_333, rate: Rational(25, 1)) == -16_333)
    }
}
