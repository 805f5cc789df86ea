import Glibc
import Testing

@testable import CaptureCore

/// Each missing frame is counted once (the queue's drops were once counted late and again as a
/// gap), so `written + late + corrupt` is what the device delivered.
@Suite struct FrameTallyTests {
    /// The device's own count of frames lost before a frame (its sequence numbers) counts only as
    /// far as it falls in the recording: not before its start (a camera opened first loses frames
    /// while the others open), not after its end.
    @Test func theDevicesLossesCountOnlyWithinTheRecording() {
        var tally = FrameTally()
        tally.countLostByDevice(4, before: -2)
        tally.countLostByDevice(7, before: 0)
        #expect(tally.lostByDevice == 0, "before the start")
        tally.countLostByDevice(5, before: 2)
        #expect(tally.lostByDevice == 2, "slots 0 and 1 only")
        tally.countWritten(slot: 2)
        tally.countLostByDevice(1, before: 4)
        tally.countWritten(slot: 4)
        #expect(tally.lostByDevice == 3)
        // A frame past the end at slot 10 after 6 frames lost: slots 5 to 9 were the recording's.
        tally.countLostByDevice(6, before: 10)
        #expect(tally.lostByDevice == 8)
        #expect(tally.dropped == tally.gaps, "the device's losses are none of the recorder's own drops")
    }

    /// Plays a recording of 20 slots at one frame a slot. `lost`: slots the device never filled;
    /// `queued`: frames the queue dropped (noted just before the next frame taken, as the loop
    /// does); `corrupt`: empty buffers; `twice`: slots the device filled twice.
    func play(lost: Set<Int64>, queued: Set<Int64>, corrupt: Set<Int64>, twice: Set<Int64>) -> FrameTally {
        var tally = FrameTally()
        var pendingDrops = 0
        for slot in Int64(0)..<20 where !lost.contains(slot) {
            if queued.contains(slot) {
                pendingDrops += 1
                continue
            }
            tally.countLate(pendingDrops)
            pendingDrops = 0
            if corrupt.contains(slot) {
                tally.countCorrupt()
                continue
            }
            tally.countWritten(slot: slot)
            if twice.contains(slot) {
                #expect(tally.isDuplicate(slot: slot))
                tally.countDuplicate()
            }
        }
        tally.countLate(pendingDrops)
        tally.countEnd(before: 20)
        return tally
    }

    @Test func queueDropsAreLateAndNotAlsoGaps() {
        let tally = play(lost: [], queued: [3, 4, 5], corrupt: [], twice: [])
        #expect(tally.written == 17 && tally.late == 3 && tally.gaps == 0)
        #expect(tally.written + tally.dropped == 20)
    }

    @Test func everyCauseTogetherStillAddsUp() {
        let lost: Set<Int64> = [7, 8, 19]
        let queued: Set<Int64> = [3, 4, 10, 17, 18]
        let corrupt: Set<Int64> = [12]
        let twice: Set<Int64> = [15]
        let tally = play(lost: lost, queued: queued, corrupt: corrupt, twice: twice)
        #expect(tally.late == queued.count + twice.count)
        #expect(tally.corrupt == 1)
        #expect(tally.gaps == lost.count, "device losses, the trailing one included, are the gaps")
        let delivered = 20 - lost.count + twice.count
        #expect(tally.written + tally.late + tally.corrupt == delivered)
        #expect(tally.written + tally.dropped == 20 + twice.count)
    }

    /// Feeds frames captured at `times` (milliseconds) into a tally at a nominal `rate` and ends it
    /// at `end` milliseconds.
    func deliver(_ times: [Int64], rate: Int64, end: Int64, corruptAt: Set<Int64> = []) -> FrameTally {
        var tally = FrameTally(frameInterval: 1_000_000 / rate)
        for ms in times {
            if corruptAt.contains(ms) {
                tally.countCorrupt()
                continue
            }
            let slot = (ms * rate + 500) / 1000
            if tally.isDuplicate(slot: slot) {
                tally.countDuplicate()
                continue
            }
            tally.countWritten(slot: slot, time: ms * 1000)
        }
        tally.countEnd(before: (end * rate + 500) / 1000, time: end * 1000)
        return tally
    }

    @Test func aCameraSteadilyAtHalfItsRateIsSlowNotLossy() {
        // 15 fps on a mode that announces 30, for 3 s: 45 frames, every second slot empty.
        let times = (0..<45).map { Int64($0) * 1000 / 15 }
        let tally = deliver(times, rate: 30, end: 3000)
        #expect(tally.written == 45)
        #expect(tally.dropped == 0)
        #expect(abs((tally.deliveredRate ?? 0) - 15) < 0.1)
    }

    @Test func aCameraAtTwoThirdsOfItsRateIsSlowNotLossy() {
        // 20 fps on 30: slots alternate steps of 1 and 2, the intervals are all 50 ms.
        let times = (0..<60).map { Int64($0) * 50 }
        let tally = deliver(times, rate: 30, end: 3000)
        #expect(tally.dropped == 0)
        #expect(abs((tally.deliveredRate ?? 0) - 20) < 0.1)
    }

    @Test func aSlowCameraStillCountsWhatItLosesAndWhatIsDamaged() {
        // 15 fps on 30, with frames 10, 11 and 30 lost by the device and frame 20 damaged.
        let times = (0..<45).filter { ![10, 11, 30].contains($0) }.map { Int64($0) * 1000 / 15 }
        let tally = deliver(times, rate: 30, end: 3000, corruptAt: [Int64(20) * 1000 / 15])
        #expect(tally.gaps == 3)
        #expect(tally.corrupt == 1)
        #expect(tally.written + tally.dropped == 45)
    }

    @Test func aSlowCameraWhoseDeliveryJittersIsStillSlowNotLossy() {
        // 15 fps on 30 for 6 s, each frame up to 15 ms early or late (a producer on a busy CPU).
        var generator = SplitMix(seed: 3)
        let times = (0..<90).map { Int64($0) * 1000 / 15 + Int64(generator.next() % 31) + 5 }
        let tally = deliver(times, rate: 30, end: 6000)
        #expect(tally.dropped == 0)
        #expect(abs((tally.deliveredRate ?? 0) - 15) < 0.5)
    }

    @Test func heavyRandomLossesAreNotASlowCamera() {
        // 25 fps losing 60 % of its frames at random (vivid's percentage_of_dropped_buffers): the
        // intervals are whole multiples of 40 ms, none dominant, so every loss is a gap.
        var generator = SplitMix(seed: 7)
        let times = (0..<250).filter { _ in generator.next() % 100 >= 60 }.map { Int64($0) * 40 }
        let tally = deliver(times, rate: 25, end: 10_000)
        #expect(tally.deliveredRate == nil)
        #expect(tally.written + tally.dropped == 250)
    }

    @Test func irregularLossesAtTheNominalRateAreCountedSlotBySlot() {
        // 25 fps with every third frame lost: no steady slower cadence, so as before.
        let times = (0..<75).filter { $0 % 3 != 1 }.map { Int64($0) * 40 }
        let tally = deliver(times, rate: 25, end: 3000)
        #expect(tally.deliveredRate == nil)
        #expect(tally.gaps == 25)
        #expect(tally.written + tally.dropped == 75)
    }

    @Test func aGapAfterQueueDropsCountsOnlyTheRest() {
        // The queue dropped 5 and 6, the device never delivered 7 and 8: frame 9 skips four slots.
        let tally = play(lost: [7, 8], queued: [5, 6], corrupt: [], twice: [])
        #expect(tally.late == 2 && tally.gaps == 2)
    }
}

extension PacketQueue.Event {
    var isPacket: Bool {
        if case .packet = self { return true }
        return false
    }
}

/// A small deterministic generator, so a test's random losses are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
