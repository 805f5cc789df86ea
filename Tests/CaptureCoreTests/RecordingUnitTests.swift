import Glibc
import Testing

@testable import CaptureCore

@Suite struct ContainerFormatTests {
    @Test(arguments: [
        ("a.mp4", "mp4", RecordingRequest.VideoCodec?.some(.h264), RecordingRequest.AudioCodec?.some(.aac)),
        ("dir.v1/B.MKV", "matroska", .h264, .pcm),
        ("x.nut", "nut", .raw, .pcm),
        ("x.avi", "avi", .raw, .pcm),
        ("x.y4m", "yuv4mpegpipe", .raw, nil),
        ("x.h264", "h264", .h264, nil),
        ("x.wav", "wav", nil, .pcm),
        ("x.flac", "flac", nil, .flac),
        ("x.m4a", "ipod", nil, .aac),
        ("x.opus", "opus", nil, .opus),
        ("x.mov", "mov", .h264, .aac),
    ])
    func extensionChoosesMuxerAndDefaults(
        path: String, muxer: String, video: RecordingRequest.VideoCodec?, audio: RecordingRequest.AudioCodec?
    ) throws {
        let format = try ContainerFormat.forPath(path)
        #expect(format.muxer == muxer)
        #expect(format.defaultVideoCodec == video)
        #expect(format.defaultAudioCodec == audio)
    }

    @Test(arguments: ["noextension", "x.txt", "dir.mp4/file", ".mp4"])
    func unknownOrMissingExtensionIsAUsageError(path: String) {
        #expect {
            try ContainerFormat.forPath(path)
        } throws: { error in
            guard case CaptureError.usage(let message) = error else { return false }
            return message.description.contains(".mp4, .mov, .mkv")
        }
    }
}

@Suite struct CodecChoiceTests {
    @Test(arguments: [
        ("mp4", RecordingRequest.VideoCodec?.some(.h264), RecordingRequest.AudioCodec?.some(.aac), true),
        ("mp4", .h264, .opus, true),
        ("mp4", .raw, nil, false),
        ("mp4", .h264, .pcm, false),
        ("mkv", .raw, .pcm, true),
        ("mkv", .h264, .flac, true),
        ("y4m", .raw, nil, true),
        ("y4m", .h264, nil, false),
        ("h264", .h264, nil, true),
        ("wav", nil, .pcm, true),
        ("wav", .h264, .pcm, false),
        ("flac", nil, .aac, false),
        ("opus", nil, .opus, true),
        ("m4a", nil, .aac, true),
        ("m4a", .h264, .aac, false),
    ])
    func containerHoldsCodec(
        ext: String, video: RecordingRequest.VideoCodec?, audio: RecordingRequest.AudioCodec?, ok: Bool
    ) throws {
        let container = try ContainerFormat.forPath("x.\(ext)")
        var accepted = true
        do { try CodecChoice.validate(video: video, audio: audio, in: container) } catch { accepted = false }
        #expect(accepted == ok)
    }

    @Test func muxerOptionsKeepAKilledFileReadable() throws {
        let mp4 = RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.mp4"))
        #expect(mp4["movflags"]?.contains("frag_keyframe") == true)
        #expect(mp4["movflags"]?.contains("empty_moov") == true)
        #expect(mp4["frag_duration"] == "500000")
        #expect(RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.mkv"))["cluster_time_limit"] == "500")
        #expect(RecordingPlanner.muxerOptions(for: try ContainerFormat.forPath("x.nut"))["flush_packets"] == "1")
    }
}

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

@Suite struct PacketQueueTests {
    func item(_ time: Int64) throws -> QueuedPacket { QueuedPacket(packet: try Packet(), time: time) }

    /// A queue whose recording has started (`firstTimes` returned): live video lanes drop.
    func started(_ queue: PacketQueue) -> PacketQueue {
        _ = queue.firstTimes(until: 0)
        return queue
    }

    @Test func aFullLiveVideoLaneDropsItsOldestAndCountsThem() throws {
        let queue = PacketQueue()
        let lane = queue.addLane(live: true, dropsOldest: true, capacity: 3)
        _ = started(queue)
        for time in 0..<10 { queue.push(try item(Int64(time)), lane: lane) }
        #expect(queue.dropped(lane: lane) == 7)
        var times: [Int64] = []
        while case .packet(_, let packet) = queue.next(timeout: 0) { times.append(packet.time) }
        #expect(times == [7, 8, 9])
    }

    @Test func beforeTheRecordingStartsALiveVideoLaneKeepsWhatItGets() throws {
        // The camera delivers while a microphone's first fragment is still on its way: those
        // frames belong to the recording once it starts at the microphone's first sample.
        let queue = PacketQueue()
        let video = queue.addLane(live: true, dropsOldest: true, capacity: 3)
        let audio = queue.addLane(live: true, dropsOldest: false, capacity: 100)
        for time in 0..<10 { queue.push(QueuedPacket(packet: try Packet(size: 1024), time: Int64(time)), lane: video) }
        #expect(queue.dropped(lane: video) == 0)
        queue.push(try item(2), lane: audio)
        #expect(queue.firstTimes(until: 0) == [0, 2])
        // The backlog is worked off: the lane takes new frames without dropping old ones, shrinking
        // back to its capacity as the loop takes from it, and drops again only once there.
        var taken = 0
        for time in 10..<20 {
            queue.push(QueuedPacket(packet: try Packet(size: 1024), time: Int64(time)), lane: video)
            for _ in 0..<2 where queue.next(timeout: 0).isPacket { taken += 1 }
        }
        #expect(queue.dropped(lane: video) == 0)
        while queue.next(timeout: 0).isPacket { taken += 1 }
        #expect(taken == 21, "every frame and the one audio packet")
        for time in 20..<30 { queue.push(try item(Int64(time)), lane: video) }
        #expect(queue.dropped(lane: video) == 7)
    }

    @Test func aLiveAudioLaneNeverDrops() throws {
        let queue = PacketQueue()
        let lane = queue.addLane(live: true, dropsOldest: false, capacity: 2)
        for time in 0..<50 { queue.push(try item(Int64(time)), lane: lane) }
        #expect(queue.dropped(lane: lane) == 0)
        var count = 0
        while case .packet = queue.next(timeout: 0) { count += 1 }
        #expect(count == 50)
    }

    @Test func lanesAreMergedInTimeOrderAndEndsAreReported() throws {
        let queue = PacketQueue()
        let video = queue.addLane(live: false, dropsOldest: false, capacity: 10)
        let audio = queue.addLane(live: false, dropsOldest: false, capacity: 10)
        for time in [0, 40, 80] { queue.push(try item(Int64(time)), lane: video) }
        for time in [10, 30, 50, 70] { queue.push(try item(Int64(time)), lane: audio) }
        queue.end(lane: video, error: nil)
        queue.end(lane: audio, error: .io(subject: "mic", reason: "lost"))
        var seen: [String] = []
        loop: while true {
            switch queue.next(timeout: 0) {
            case .packet(let lane, let packet): seen.append("\(lane == video ? "v" : "a")\(packet.time)")
            case .ended(let lane, let error):
                seen.append("end \(lane == video ? "v" : "a")\(error == nil ? "" : " error")")
            case .idle: break loop
            }
        }
        // A lane's end is reported as soon as it is drained, so an error is not held back.
        #expect(seen == ["v0", "a10", "a30", "v40", "a50", "a70", "end a error", "v80", "end v"])
    }

    @Test func liveLanesGoInTimeOrderUntilAudioLagsTooFar() throws {
        let now = SessionClock.now()
        let queue = PacketQueue()
        let video = queue.addLane(live: true, dropsOldest: true, capacity: 2)
        let audio = queue.addLane(live: true, dropsOldest: false, capacity: 100)
        _ = started(queue)
        // The loop fell behind: the video lane kept its two freshest frames; the audio backlog
        // reaches back 1.5 s, beyond the lag limit.
        for ms in [300, 200, 100, 50] { queue.push(try item(now - Int64(ms) * 1000), lane: video) }
        for ms in [1500, 1200, 400, 150, 20] { queue.push(try item(now - Int64(ms) * 1000), lane: audio) }
        var order: [String] = []
        while case .packet(let lane, let packet) = queue.next(timeout: 0) {
            order.append("\(lane == video ? "v" : "a")\((now - packet.time) / 1000)")
        }
        // Audio older than the limit first, then time order.
        #expect(order == ["a1500", "a1200", "a400", "a150", "v100", "v50", "a20"])
    }

    @Test func anUnpacedLaneMakesTheLoopWaitForIt() throws {
        let queue = PacketQueue()
        let video = queue.addLane(live: false, dropsOldest: false, capacity: 10)
        let audio = queue.addLane(live: false, dropsOldest: false, capacity: 10)
        queue.push(try item(100), lane: audio)
        // The video lane may still deliver something earlier, so nothing is taken yet.
        guard case .idle = queue.next(timeout: 0.01) else {
            Issue.record("took a packet while an unpaced lane was empty")
            return
        }
        queue.push(try item(50), lane: video)
        guard case .packet(let lane, let packet) = queue.next(timeout: 0) else {
            Issue.record("no packet")
            return
        }
        #expect(lane == video && packet.time == 50)
    }

    /// Watches an object without keeping it alive.
    final class Watch {
        weak var object: Packet?
        init(_ object: Packet) { self.object = object }
    }

    /// Takes one packet and lets go of it; returns its time.
    func takeOne(_ queue: PacketQueue) -> Int64? {
        guard case .packet(_, let item) = queue.next(timeout: 0) else { return nil }
        return item.time
    }

    // A consumed 720p frame is 1.4 MB: the queue must not keep what it handed out or dropped.
    @Test func aPacketIsFreedOnceTakenOrDropped() throws {
        let queue = PacketQueue()
        let lane = queue.addLane(live: true, dropsOldest: true, capacity: 2)
        _ = started(queue)
        var watches: [Watch] = []
        for time in 0..<3 {
            let packet = try Packet(size: 1024)
            watches.append(Watch(packet))
            queue.push(QueuedPacket(packet: packet, time: Int64(time)), lane: lane)
        }
        #expect(watches[0].object == nil, "the packet dropped from the full lane is still alive")
        #expect(takeOne(queue) == 1)
        #expect(watches[1].object == nil, "the packet taken is still alive")
        #expect(watches[2].object != nil)
        // Many rounds through a small lane: nothing accumulates behind the consumer.
        for time in 3..<200 {
            let packet = try Packet(size: 1024)
            watches.append(Watch(packet))
            queue.push(QueuedPacket(packet: packet, time: Int64(time)), lane: lane)
            if time % 3 == 0 { _ = takeOne(queue) }
        }
        #expect(watches.filter { $0.object != nil }.count == 2)
        queue.close()
        #expect(watches.allSatisfy { $0.object == nil })
    }
}

@Suite struct PacketRingTests {
    @Test func keepsOrderAcrossWrapAndGrowth() {
        var ring = PacketRing<Int>(capacity: 2)
        var taken: [Int] = []
        var next = 0
        // Interleaved pushes and pops wrap the head around, then a burst makes it grow twice.
        for _ in 0..<5 {
            ring.push(next)
            next += 1
            ring.push(next)
            next += 1
            taken.append(ring.popFirst()!)
        }
        #expect(ring.count == 5)
        for _ in 0..<6 {
            ring.push(next)
            next += 1
        }
        while let value = ring.popFirst() { taken.append(value) }
        #expect(taken == Array(0..<next))
        #expect(ring.isEmpty && ring.first == nil)
    }
}

@Suite struct PCMCoalescerTests {
    // 48 kHz stereo 16-bit: 4 bytes a sample frame; 16 frames last 333 µs.
    func item(frames: Int, at time: Int64) throws -> QueuedPacket {
        QueuedPacket(packet: try Packet(size: frames * 4), time: time)
    }

    @Test func smallPacketsBecomeBlocksStampedWithTheirFirstSample() throws {
        var coalescer = PCMCoalescer(frameBytes: 4, sampleRate: 48000, blockFrames: 1024)
        var blocks: [QueuedPacket] = []
        for n in 0..<200 {
            blocks += try coalescer.add(try item(frames: 16, at: 1_000_000 + Int64(n) * 16 * 1_000_000 / 48000))
        }
        // 200 x 16 = 3200 frames: three blocks of 1024, 128 frames pending.
        #expect(blocks.map { $0.packet.size / 4 } == [1024, 1024, 1024])
        #expect(blocks.map(\.time) == [1_000_000, 1_021_333, 1_042_666])
        #expect(coalescer.flush()?.packet.size == 128 * 4)
        #expect(coalescer.flush() == nil)
    }

    @Test func aGapStartsANewBlock() throws {
        var coalescer = PCMCoalescer(frameBytes: 4, sampleRate: 48000, blockFrames: 1024)
        #expect(try coalescer.add(try item(frames: 480, at: 0)).isEmpty)  // 10 ms
        // An overrun: the next packet is 100 ms late.
        let ready = try coalescer.add(try item(frames: 480, at: 110_000))
        #expect(ready.map { $0.packet.size / 4 } == [480])
        #expect(ready.first?.time == 0)
        #expect(coalescer.flush()?.time == 110_000)
    }
}

/// Each missing frame is counted once (the queue's drops were once counted late and again as a
/// gap), so `written + late + corrupt` is what the device delivered.
@Suite struct FrameTallyTests {
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

/// A camera that refuses to start streaming is explained in its terms, not as raw errno text.
@Suite struct StreamStartErrorTests {
    let mode = VideoMode(
        fourcc: "YUYV", inputFormat: "yuyv422", width: 1280, height: 720, frameRate: Rational(10, 1),
        rateFromInput: false, compressed: false, multiplanar: false)

    @Test func noSpaceAtStreamStartIsUSBBandwidthNotAFullDisk() throws {
        let reason = try #require(
            InputSource.streamStartReason(FFmpegError(-ENOSPC, call: "avformat_open_input"), mode: mode)?.description)
        #expect(reason.contains("USB bus has too little bandwidth left to stream YUYV 1280x720 at 10 fps"))
        #expect(reason.contains("not a full disk"))
        #expect(reason.contains("smaller size"))
    }

    @Test func otherErrorsWithoutAStreamStartAreLeftToTheCaller() {
        #expect(InputSource.streamStartReason(FFmpegError(-EINVAL, call: "avformat_open_input"), mode: mode) == nil)
    }
}
