import Testing

@testable import CaptureCore

/// A packet that points into a device's buffer keeps its input open until the packet is freed,
/// whatever order the owners let go in (the V4L2 crash at the end of a raw recording).
@Suite struct DeviceBufferLeaseTests {
    final class Watch<T: AnyObject> {
        weak var object: T?
        init(_ object: T) { self.object = object }
    }

    /// Opens a lavfi input, reads one packet and leases its buffer; only the packet is returned.
    func leasedPacket() throws -> (Packet, Watch<InputContainer>) {
        let input = try InputContainer(url: "testsrc2=size=64x48:rate=10", format: "lavfi")
        let packet = try Packet()
        #expect(try input.read(into: packet))
        try DeviceBufferLease.attach(to: packet, owner: input)
        return (packet, Watch(input))
    }

    @Test func theInputClosesOnlyAfterTheLastReferenceToThePacketsData() throws {
        var (packet, input): (Packet?, Watch<InputContainer>) = try leasedPacket()
        #expect(input.object != nil, "the input closed while a packet still pointed into it")
        // A second reference to the data, as a decoder's frame or the muxer's queue takes one.
        let other = try Packet(referencing: packet!)
        packet = nil
        #expect(input.object != nil, "the input closed while the muxer or a decoder still held its data")
        other.unref()
        #expect(input.object == nil, "the input stayed open after the last reference went")
    }
}
