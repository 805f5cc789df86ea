import Glibc
import Testing

@testable import CaptureCore

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
