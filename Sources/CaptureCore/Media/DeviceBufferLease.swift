internal import CFFmpeg

/// Keeps an input open for as long as any packet refers to memory the input's device owns.
///
/// FFmpeg's v4l2 input hands out packets whose payload is one of the driver's mmap buffers; when
/// the last reference to it goes, a callback hands the buffer back to the driver through the
/// input's context (`VIDIOC_QBUF`). If the input was closed first, that callback runs on freed
/// memory and the process crashes. Ordering the teardown by hand is not enough: references escape
/// into decoders' frames and the muxer's interleaving queue. So each such packet's buffer is
/// re-wrapped (`av_buffer_create`) in one whose free callback releases a lease: the lease holds
/// the original buffer reference and a strong reference to the `InputContainer`, and gives the
/// buffer back before it lets go of the input. Wherever FFmpeg carries the packet's data, the
/// input cannot close under it. It costs two small allocations a packet and no copy of the payload.
final class DeviceBufferLease {
    private var buffer: UnsafeMutablePointer<AVBufferRef>?
    private let owner: InputContainer

    private init(buffer: UnsafeMutablePointer<AVBufferRef>, owner: InputContainer) {
        self.buffer = buffer
        self.owner = owner
    }

    deinit {
        // The device buffer goes back first, while `owner` is still alive; `owner` is released
        // after this body, which may close the input.
        av_buffer_unref(&buffer)
    }

    /// Replaces `packet`'s buffer reference with one that keeps `owner` open until it is freed.
    /// The payload pointer and size stay as they are. A packet without a buffer is left alone.
    ///
    /// - Throws: `FFmpegError` (ENOMEM) when the wrapper cannot be allocated; the packet is then
    ///   unreferenced, so the device buffer goes back at once.
    static func attach(to packet: Packet, owner: InputContainer) throws(FFmpegError) {
        guard let original = packet.pointer.pointee.buf else { return }
        let lease = Unmanaged.passRetained(DeviceBufferLease(buffer: original, owner: owner))
        guard
            let wrapped = av_buffer_create(
                original.pointee.data, original.pointee.size, releaseLease, lease.toOpaque(), 0)
        else {
            // The lease took over `original`: releasing it gives the device buffer back.
            packet.pointer.pointee.buf = nil
            lease.release()
            packet.unref()
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_buffer_create")
        }
        packet.pointer.pointee.buf = wrapped
    }
}

/// The wrapper's free callback: a C function pointer, so it cannot capture anything; the lease
/// comes back through `opaque`.
private let releaseLease: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void = {
    opaque, _ in
    guard let opaque else { return }
    Unmanaged<DeviceBufferLease>.fromOpaque(opaque).release()
}
