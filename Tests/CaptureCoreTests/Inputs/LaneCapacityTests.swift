import Testing

@testable import CaptureCore

/// How many frames a camera's lane holds before it drops the oldest: a second of the camera's
/// rate, within a memory budget for raw pictures, never fewer than eight.
@Suite struct LaneCapacityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var rate: Rational
        var frameBytes: Int?
        var expected: Int
        var testDescription: String { "\(rate) fps, \(frameBytes.map(String.init) ?? "compressed") -> \(expected)" }
    }

    static let cases: [Case] = [
        // A compressed camera (no raw size): a second of frames.
        Case(rate: Rational(30, 1), frameBytes: nil, expected: 30),
        Case(rate: Rational(30000, 1001), frameBytes: nil, expected: 30),
        Case(rate: Rational(5, 1), frameBytes: nil, expected: 8),
        // 640x480 YUYV, 614 400 bytes: a second fits the budget.
        Case(rate: Rational(25, 1), frameBytes: 614_400, expected: 25),
        // 1920x1080 YUYV, 4 147 200 bytes: twelve pictures fill 48 MiB.
        Case(rate: Rational(30, 1), frameBytes: 4_147_200, expected: 12),
        // 4K NV12 at 30 fps: the budget holds fewer than eight, eight it is.
        Case(rate: Rational(30, 1), frameBytes: 12_441_600, expected: 8),
    ]

    @Test(arguments: cases)
    func oneSecondWithinTheBudget(_ c: Case) {
        #expect(RecordingSession.liveVideoCapacity(rate: c.rate, frameBytes: c.frameBytes) == c.expected)
    }

    @Test func theCaptureTimeAndTheArrivalTravelWithThePacket() throws {
        // A frame's arrival is when its reader queued it, whenever the loop takes it.
        let item = QueuedPacket(packet: try Packet(), time: 5, arrival: 7)
        let queue = PacketQueue()
        let lane = queue.addLane(live: true, dropsOldest: true, capacity: 2)
        _ = queue.firstTimes(until: 0)
        queue.push(item, lane: lane)
        guard case .packet(_, let taken) = queue.next(timeout: 0) else {
            Issue.record("no packet")
            return
        }
        #expect(taken.time == 5 && taken.arrival == 7)
    }
}
