/// Frames a V4L2 device lost, counted from the sequence numbers of the buffers it delivered.
///
/// Drivers number their buffers (`v4l2_buffer.sequence`, 32 bits) and skip one number for every
/// frame they could not deliver (no buffer queued, a transfer error); a gap of `n` numbers is `n`
/// frames lost. The counter wraps from 2^32 - 1 to 0, which is no loss. A number that goes back
/// or repeats (a driver restarting its count, one that never numbers) counts nothing; a driver
/// that has not yet shown two consecutive numbers apart by less than half the counter's range is
/// taken not to number its buffers at all (`numbered` is false). Each buffer's packet carries the
/// frames lost just before it (`Packet.framesLostBefore`), so the recording adds up only those
/// within it; no running total is kept here.
///
/// A value type with no clock: each call says which number came.
struct SequenceGaps: Equatable, Sendable {
    private var last: UInt32?
    /// True once the device has shown that it numbers its buffers.
    private(set) var numbered = false

    init() {}

    /// Counts the buffer numbered `sequence`, delivered after the previous one.
    ///
    /// - Returns: the frames lost just before it (0 for the first buffer and after a wrap).
    @discardableResult
    mutating func add(_ sequence: UInt32) -> Int {
        defer { last = sequence }
        guard let last else { return 0 }
        // Unsigned arithmetic modulo 2^32: 0 after 2^32 - 1 is a step of one.
        let step = sequence &- last
        guard step != 0, step < 1 << 31 else { return 0 }
        numbered = true
        return Int(step - 1)
    }
}
