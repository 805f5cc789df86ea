import Glibc
import Testing

@testable import CaptureCore

@Suite struct TimestampMapperTests {
    let arrival: Int64 = 5_000_000_000  // 5000 s of uptime
    let wallOffset: Int64 = 1_800_000_000_000_000  // the wall clock is ~57 years ahead of uptime

    @Test func monotonicTimestampsAreTakenAsTheyAre() {
        var mapper = TimestampMapper()
        // A V4L2 buffer captured 30 ms before it was read.
        #expect(mapper.sessionTime(pts: arrival - 30_000, arrival: arrival, wallOffset: wallOffset) == arrival - 30_000)
        #expect(mapper.domain == .monotonic)
    }

    @Test func wallClockTimestampsAreMovedToTheMonotonicClock() {
        var mapper = TimestampMapper()
        let pts = arrival + wallOffset - 20_000
        #expect(mapper.sessionTime(pts: pts, arrival: arrival, wallOffset: wallOffset) == arrival - 20_000)
        #expect(mapper.domain == .wallClock)
        // Later packets keep the domain even if the offset moved a little (a clock adjustment).
        #expect(
            mapper.sessionTime(pts: pts + 1_000_000, arrival: arrival + 1_000_000, wallOffset: wallOffset + 500)
                == arrival + 1_000_000 - 20_000 - 500)
    }

    @Test func mediaTimestampsAreAnchoredAtTheFirstArrival() {
        var mapper = TimestampMapper()
        #expect(mapper.sessionTime(pts: 0, arrival: arrival, wallOffset: wallOffset) == arrival)
        #expect(mapper.domain == .media)
        // The source's own spacing is kept, whatever the arrival jitter.
        #expect(mapper.sessionTime(pts: 33_333, arrival: arrival + 50_000, wallOffset: wallOffset) == arrival + 33_333)
    }

    @Test func unpacedSourcesShareOneOrigin() {
        var video = TimestampMapper(domain: .media, origin: arrival)
        var audio = TimestampMapper(domain: .media, origin: arrival)
        // The audio reader ran first, the video reader 200 ms later: their media times still agree.
        #expect(audio.sessionTime(pts: 0, arrival: arrival + 1_000, wallOffset: wallOffset) == arrival)
        #expect(video.sessionTime(pts: 0, arrival: arrival + 200_000, wallOffset: wallOffset) == arrival)
        #expect(video.sessionTime(pts: 33_333, arrival: arrival + 201_000, wallOffset: wallOffset) == arrival + 33_333)
    }

    @Test func aForcedDomainIsNotDetected() {
        var mapper = TimestampMapper(domain: .media)
        // Close to the monotonic clock by chance, but a lavfi graph counts media time.
        #expect(mapper.sessionTime(pts: arrival + 10, arrival: arrival + 99, wallOffset: wallOffset) == arrival + 99)
    }

    @Test func aWrappedMonotonicClockIsFollowedFromItsJump() {
        // vivid's wrap_timestamp=1: a 64-bit nanosecond clock wraps 16 s after streaming starts,
        // and its microsecond timestamps jump from near +9.2e15 to near -9.2e15.
        var mapper = TimestampMapper()
        let start: Int64 = 9_223_372_020_000_000
        #expect(mapper.sessionTime(pts: start, arrival: arrival, wallOffset: wallOffset) == arrival)
        let beforeWrap = mapper.sessionTime(
            pts: start + 15_960_000, arrival: arrival + 15_960_000, wallOffset: wallOffset)
        #expect(beforeWrap == arrival + 15_960_000)
        let wrapped = -start - 15_000
        let atWrap = mapper.sessionTime(pts: wrapped, arrival: arrival + 16_000_000, wallOffset: wallOffset)
        #expect(atWrap == arrival + 16_000_000)
        #expect(mapper.jumps == 1)
        // After the jump the device's own spacing is kept again.
        #expect(
            mapper.sessionTime(pts: wrapped + 40_000, arrival: arrival + 16_050_000, wallOffset: wallOffset)
                == arrival + 16_040_000)
    }

    @Test func aMonotonicClockThatFallsBackIsAnchoredAgain() {
        var mapper = TimestampMapper()
        _ = mapper.sessionTime(pts: arrival, arrival: arrival, wallOffset: wallOffset)
        // A clock reset by 3 s: within the detection tolerance of now, but far behind the last.
        #expect(
            mapper.sessionTime(pts: arrival - 3_000_000, arrival: arrival + 40_000, wallOffset: wallOffset) == arrival
                + 40_000)
        #expect(mapper.jumps == 1)
        // Jitter of a few milliseconds backwards is not a jump.
        _ = mapper.sessionTime(pts: arrival - 2_990_000, arrival: arrival + 50_000, wallOffset: wallOffset)
        _ = mapper.sessionTime(pts: arrival - 2_995_000, arrival: arrival + 60_000, wallOffset: wallOffset)
        #expect(mapper.jumps == 1)
    }

    @Test func aForcedMediaClockRunningAheadIsKept() {
        // An unpaced lavfi graph runs far ahead of real time: that is not a jump.
        var mapper = TimestampMapper(domain: .media, origin: arrival)
        #expect(
            mapper.sessionTime(pts: 60_000_000, arrival: arrival + 1_000_000, wallOffset: wallOffset) == arrival
                + 60_000_000)
        #expect(mapper.jumps == 0)
    }

    @Test func missingTimestampsTakeTheArrivalTime() {
        var mapper = TimestampMapper()
        #expect(mapper.sessionTime(pts: nil, arrival: arrival, wallOffset: wallOffset) == arrival)
        #expect(mapper.domain == nil)
    }
}
