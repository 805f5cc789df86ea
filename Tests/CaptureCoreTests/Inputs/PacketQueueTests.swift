import Glibc
import Testing

@testable import CaptureCore

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

    @Test func aDroppedPacketHandsTheDevicesLossBeforeItToThePacketAfterIt() throws {
        // The queue's drop is late, not the device's loss; the frames the device lost before the
        // dropped packet stay counted, on the packet that follows it.
        let queue = PacketQueue()
        let lane = queue.addLane(live: true, dropsOldest: true, capacity: 2)
        _ = started(queue)
        for (time, lost) in [(0, 3), (1, 0), (2, 1), (3, 0)] {
            let next = try item(Int64(time))
            next.packet.framesLostBefore = lost
            queue.push(next, lane: lane)
        }
        #expect(queue.dropped(lane: lane) == 2)
        var seen: [[Int64]] = []
        while case .packet(_, let packet) = queue.next(timeout: 0) {
            seen.append([packet.time, Int64(packet.packet.framesLostBefore)])
        }
        #expect(seen == [[2, 4], [3, 0]])
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
