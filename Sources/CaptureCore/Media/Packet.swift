internal import CFFmpeg

/// One packet (`AVPacket`): compressed data, or a raw frame as a device or lavfi delivers it.
///
/// Owns its `AVPacket` (`av_packet_alloc`, freed with `av_packet_free` in deinit). Marked
/// `@unchecked Sendable` because a packet is handed whole from a reader thread to the recording
/// loop through the packet queue and never touched by the reader again.
final class Packet: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// Frames the device lost just before this one, by its buffers' sequence numbers
    /// (`SequenceGaps`); 0 when none or unknown. Set by capture's own V4L2 reader, so the loop
    /// counts only the losses inside the recording; the packet queue moves a dropped packet's
    /// count to the packet after it.
    var framesLostBefore = 0

    /// An empty packet. Wraps `av_packet_alloc`.
    init() throws(FFmpegError) {
        guard let packet = av_packet_alloc() else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_packet_alloc")
        }
        pointer = packet
    }

    /// A packet with a zeroed payload of `size` bytes (`av_new_packet`).
    convenience init(size: Int) throws(FFmpegError) {
        try self.init()
        try check(av_new_packet(pointer, Int32(size)), "av_new_packet")
        pointer.pointee.data.initialize(repeating: 0, count: size)
    }

    /// A new reference to `other`'s payload, with its timestamps and flags (`av_packet_ref`); the
    /// payload is shared, not copied.
    convenience init(referencing other: Packet) throws(FFmpegError) {
        try self.init()
        try check(av_packet_ref(pointer, other.pointer), "av_packet_ref")
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// Presentation time in the time base of the stream it came from; nil when unknown.
    var pts: Int64? {
        get { pointer.pointee.pts == CFFmpeg_AV_NOPTS_VALUE ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? CFFmpeg_AV_NOPTS_VALUE }
    }

    /// Decoding time, same time base as `pts`; nil when unknown.
    var dts: Int64? {
        get { pointer.pointee.dts == CFFmpeg_AV_NOPTS_VALUE ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? CFFmpeg_AV_NOPTS_VALUE }
    }

    /// How long the packet lasts, same time base as `pts` (`AVPacket.duration`); 0 when unknown.
    var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }

    /// Size of the payload in bytes (`AVPacket.size`).
    var size: Int { Int(pointer.pointee.size) }

    /// Index of the stream in its container (`AVPacket.stream_index`).
    var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    /// True when the packet starts a keyframe (`AV_PKT_FLAG_KEY`).
    var isKeyframe: Bool {
        get { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
        set {
            pointer.pointee.flags =
                newValue ? pointer.pointee.flags | AV_PKT_FLAG_KEY : pointer.pointee.flags & ~AV_PKT_FLAG_KEY
        }
    }

    /// True when the demuxer marked the payload corrupt (`AV_PKT_FLAG_CORRUPT`).
    var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }

    /// True when the payload is a whole JPEG image: it starts with the start-of-image marker and
    /// ends with the end-of-image marker, after any zero padding (UVC cameras pad some frames).
    var isWholeJPEG: Bool {
        guard size >= 4, let data = pointer.pointee.data else { return false }
        var end = size
        while end > 2 && data[end - 1] == 0 { end -= 1 }
        return data[0] == 0xFF && data[1] == 0xD8 && data[end - 2] == 0xFF && data[end - 1] == 0xD9
    }

    /// Moves the timestamps from time base `from` to `to`, rounding to nearest
    /// (`av_packet_rescale_ts`).
    func rescaleTimestamps(from: AVRational, to: AVRational) {
        av_packet_rescale_ts(pointer, from, to)
    }

    /// Cuts a packet of raw PCM (the same bytes for every tick of its `duration`) `ticks` after
    /// its start: this packet keeps the head, the returned one holds the rest, with its times.
    /// The payload is copied, not shared, and this packet's buffer is not written to: another
    /// reference to it (a stream's) keeps it whole.
    ///
    /// - Returns: nil when the packet cannot be cut there (not strictly inside, or bytes that do
    ///   not divide into its ticks).
    func splitPCM(at ticks: Int64) throws(FFmpegError) -> Packet? {
        let total = size
        guard ticks > 0, ticks < duration, duration > 0, total % Int(duration) == 0, let data = pointer.pointee.data
        else { return nil }
        let head = Int(ticks) * (total / Int(duration))
        let tail = try Packet(size: total - head)
        tail.pointer.pointee.data.update(from: data + head, count: total - head)
        tail.pts = pts.map { $0 + ticks }
        tail.dts = dts.map { $0 + ticks }
        tail.duration = duration - ticks
        tail.pointer.pointee.flags = pointer.pointee.flags
        pointer.pointee.size = Int32(head)
        duration = ticks
        return tail
    }

    /// Appends `other`'s payload to this packet's (`av_grow_packet`, then a copy); the
    /// timestamps stay this packet's. For raw PCM, whose bytes simply follow each other.
    func append(_ other: Packet) throws(FFmpegError) {
        let offset = size
        try check(av_grow_packet(pointer, Int32(other.size)), "av_grow_packet")
        if other.size > 0 {
            (pointer.pointee.data + offset).update(from: other.pointer.pointee.data, count: other.size)
        }
    }

    /// Drops the payload and resets the fields, keeping the allocation (`av_packet_unref`).
    func unref() { av_packet_unref(pointer) }
}

extension Packet {
    /// A copy of the payload.
    var bytes: [UInt8] {
        guard size > 0, let data = pointer.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
