import Testing

@testable import CaptureCore

/// How many frames a camera's lane holds before it drops the oldest: a second of the camera's
/// rate, within a memory budget for raw pictures, never fewer than eight.
@Suite struct LaneCapacityTests {
    @Test(arguments: [
        // A compressed camera (no raw size): a second of frames.
        (Rational(30, 1), nil as Int?, 30),
        (Rational(30000, 1001), nil, 30),
        (Rational(5, 1), nil, 8),
        // 640x480 YUYV, 614 400 bytes: a second fits the budget.
        (Rational(25, 1), 640 * 480 * 2, 25),
        // 1920x1080 YUYV, 4 147 200 bytes: twelve pictures fill 48 MiB.
        (Rational(30, 1), 1920 * 1080 * 2, 12),
        // 4K NV12 at 30 fps: the budget holds fewer than eight, eight it is.
        (Rational(30, 1), 3840 * 2160 * 3 / 2, 8),
    ])
    func oneSecondWithinTheBudget(rate: Rational, frameBytes: Int?, expected: Int) {
        #expect(RecordingSession.liveVideoCapacity(rate: rate, frameBytes: frameBytes) == expected)
    }

    @Test func theStartAndTheArrivalTravelWithThePacket() throws {
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
