import Testing

@testable import CaptureCore

/// A camera slower than its nominal rate, on a machine so busy that its frames arrive late and in
/// bursts, is still told from one that loses frames at random.
@Suite struct FrameTallyBurstTests {
    /// Feeds frames captured at `times` (microseconds) into a tally at a nominal `rate`, placing
    /// each as the recorder does (in its slot, or in the next free one up to two slots on), and
    /// ends it at `end` microseconds.
    func deliver(_ times: [Int64], rate: Int64, end: Int64) -> FrameTally {
        var tally = FrameTally(frameInterval: 1_000_000 / rate)
        for time in times {
            let natural = (time * rate + 500_000) / 1_000_000
            var slot = natural
            if let last = tally.lastSlot, natural <= last {
                guard last + 1 - natural <= 2 else {
                    tally.countDuplicate()
                    continue
                }
                slot = last + 1
            }
            tally.countWritten(slot: slot, time: time)
        }
        tally.countEnd(before: (end * rate + 500_000) / 1_000_000, time: end)
        return tally
    }

    /// A 15 fps camera on a 30 fps node for 6 s on a busy machine: each frame up to 25 ms late,
    /// and one frame in `stallEvery` starts a stall of 50 to 50 + `stall` ms, after which the
    /// frames held up come in a burst, 2 ms apart.
    func busySlowCamera(seed: UInt64, stallEvery: UInt64, stall: UInt64) -> [Int64] {
        var generator = SplitMix(seed: seed)
        var times: [Int64] = []
        var heldUntil: Int64 = 0
        for n in 0..<90 {
            let due = Int64(n) * 1_000_000 / 15
            if generator.next() % stallEvery == 0 { heldUntil = due + 50_000 + Int64(generator.next() % stall) }
            var time = max(heldUntil, due + Int64(generator.next() % 25_000))
            if let last = times.last, time <= last { time = last + 2_000 }
            times.append(time)
        }
        return times
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func aSlowCameraOnABusyMachineIsSlowNotLossy(seed: UInt64) {
        // Before bursts were left out, most of these counted about half the frames as gaps.
        for (every, stall): (UInt64, UInt64) in [(6, 100_000), (6, 200_000), (4, 100_000)] {
            let tally = deliver(busySlowCamera(seed: seed, stallEvery: every, stall: stall), rate: 30, end: 6_000_000)
            let rate = tally.deliveredRate ?? 0
            #expect(abs(rate - 15) < 1, "stall every \(every), delivered \(rate)")
            #expect(tally.gaps <= 5, "stall every \(every), \(tally.gaps) gaps")
        }
    }

    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18] as [UInt64])
    func randomLossesAtTheNominalRateStayGaps(seed: UInt64) {
        // vivid's percentage_of_dropped_buffers: 30 fps losing 30 % or 55 % of its frames at random.
        for percent: UInt64 in [30, 55] {
            var generator = SplitMix(seed: seed)
            let kept = (0..<180).filter { _ in generator.next() % 100 >= percent }
            let tally = deliver(kept.map { Int64($0) * 1_000_000 / 30 }, rate: 30, end: 6_000_000)
            // Counted from the first frame delivered on.
            let first = kept.first ?? 0
            #expect(tally.deliveredRate == nil, "\(percent) %")
            #expect(tally.gaps == 180 - first - kept.count, "\(percent) %")
        }
    }
}
