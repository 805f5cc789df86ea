internal import CFFmpeg
internal import CShim
import Glibc

/// Dequeuing: one buffer at a time, into a packet the rest of the pipeline takes as it takes
/// FFmpeg's v4l2 input's (stream 0, microseconds, rawvideo of `entry.name` or the camera's JPEG).
extension V4L2Stream {
    /// One dequeued buffer, as VIDIOC_DQBUF described it.
    struct Dequeued {
        var index: Int
        var flags: UInt32
        var sequence: UInt32
        /// The driver's timestamp, microseconds.
        var timestamp: Int64
        /// Per memory plane: bytes filled, and where the data starts in the plane.
        var bytesUsed: [Int]
        var dataOffset: [Int]
    }

    /// Waits for the camera's next buffer (poll(2), a tenth of a second at a time, so a raised
    /// `interrupt` ends the wait) and puts it in `packet`, which must be empty.
    ///
    /// The packet maps the buffer (no copy) when its picture is laid out as FFmpeg's rawvideo
    /// expects (or is compressed) and half the buffers or more are still with the driver; it is a
    /// packed copy otherwise (padded lines, planes in separate memory buffers, a recorder holding
    /// many pictures), and the buffer goes back at once. A buffer the driver flagged
    /// V4L2_BUF_FLAG_ERROR, or one too short for its picture, becomes an empty packet flagged
    /// corrupt. Timestamps: the buffer's own when the driver stamps it with CLOCK_MONOTONIC;
    /// the time it was dequeued otherwise.
    ///
    /// - Returns: true; false at the driver's end of stream (V4L2_EVENT_EOS).
    /// - Throws: `FFmpegError` with `AVERROR_EXIT` once `interrupt` is raised; with the errno of
    ///   VIDIOC_DQBUF when it fails (ENODEV for a camera unplugged, EINVAL once streaming was
    ///   stopped under the read); ENOMEM when no packet can be made; `AVERROR_INPUT_CHANGED` or
    ///   ENOLINK when the source changed mode or lost its signal (`takeEvents`).
    func read(into packet: Packet, interrupt: InterruptFlag?) throws(FFmpegError) -> Bool {
        while true {
            if interrupt?.isRaised == true { throw FFmpegError(CFFmpeg_AVERROR_EXIT, call: "poll") }
            // POLLPRI: an event is queued (`takeEvents`).
            var descriptor = pollfd(fd: handle.fd, events: Int16(POLLIN | POLLPRI), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                throw FFmpegError(CFFmpeg_AVERROR(errno), call: "poll")
            }
            if descriptor.revents & Int16(POLLPRI) != 0, try takeEvents() { return false }
            guard ready > 0, let buffer = try dequeue() else { continue }
            try fill(packet, from: buffer)
            return true
        }
    }

    /// VIDIOC_DQBUF; nil when no buffer is ready (EAGAIN).
    private func dequeue() throws(FFmpegError) -> Dequeued? {
        var buffer = v4l2_buffer()
        buffer.type = bufferType
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        var list = [v4l2_plane](repeating: v4l2_plane(), count: entry.memoryPlanes)
        let multiplanar = bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        let result: Int32 = list.withUnsafeMutableBufferPointer { pointer in
            if multiplanar {
                buffer.m.planes = pointer.baseAddress
                buffer.length = UInt32(pointer.count)
            }
            return withUnsafeMutablePointer(to: &buffer) { CShim_ioctl(handle.fd, CShim_VIDIOC_DQBUF, $0) }
        }
        if result < 0 {
            let error = Errno.current
            if error.rawValue == EAGAIN { return nil }
            throw FFmpegError(CFFmpeg_AVERROR(error.rawValue), call: "VIDIOC_DQBUF")
        }
        let time = Int64(buffer.timestamp.tv_sec) * 1_000_000 + Int64(buffer.timestamp.tv_usec)
        let used = multiplanar ? list.map { Int($0.bytesused) } : [Int(buffer.bytesused)]
        let offsets = multiplanar ? list.map { Int($0.data_offset) } : [0]
        return Dequeued(
            index: Int(buffer.index), flags: buffer.flags, sequence: buffer.sequence, timestamp: time, bytesUsed: used,
            dataOffset: offsets)
    }

    /// Puts `buffer` into `packet` as `read` describes, and counts its sequence number.
    private func fill(_ packet: Packet, from buffer: Dequeued) throws(FFmpegError) {
        let (queued, lost) = counters.withLock { counters in
            counters.queued -= 1
            let lost = counters.sequence.add(buffer.sequence)
            return (counters.queued, lost)
        }
        packet.framesLostBefore = lost
        let monotonic =
            buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let pts = monotonic ? buffer.timestamp : SessionClock.now()
        let sources = buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 ? nil : pictureSources(buffer)
        // Set last: av_new_packet, which a copy below calls, resets them. Every picture, and
        // every JPEG, is a keyframe; a copied stream waits for one after a damaged buffer.
        defer {
            packet.pts = pts
            packet.dts = pts
            packet.pointer.pointee.stream_index = 0
            packet.pointer.pointee.flags |= sources == nil ? AV_PKT_FLAG_CORRUPT : AV_PKT_FLAG_KEY
        }
        guard let sources else {
            giveBack(buffer.index)
            return
        }
        let mapsBuffer = !overwritesDequeued && queued * 2 >= bufferCount
        // A picture maps its buffer as it is when it is one packed run of bytes in FFmpeg's order.
        let packed =
            entry.memoryPlanes == 1 && entry.planeOrder == nil && entry.interleavedChroma == nil
            && planes[0].bytesPerLine == picture?.lineSizes[0]
        if let picture, !mapsBuffer || !packed {
            defer { giveBack(buffer.index) }
            try check(av_new_packet(packet.pointer, Int32(picture.size)), "av_new_packet")
            picture.pack(sources, into: packet.pointer.pointee.data)
            return
        }
        let start = sources[0].start
        let length = picture?.size ?? (buffer.bytesUsed[0] - buffer.dataOffset[0])
        if !mapsBuffer {
            defer { giveBack(buffer.index) }
            try check(av_new_packet(packet.pointer, Int32(length)), "av_new_packet")
            memcpy(packet.pointer.pointee.data, start, length)
            return
        }
        try lend(buffer.index, start: start, length: length, to: packet)
    }

    /// Where the packed planes of `buffer`'s picture are (one source for a compressed format),
    /// or nil when the driver filled too few bytes for it.
    private func pictureSources(_ buffer: Dequeued) -> [PackedPicture.Source]? {
        let memory = mappings[buffer.index]
        func start(_ plane: Int) -> UnsafeRawPointer? {
            let offset = buffer.dataOffset[plane]
            guard offset <= buffer.bytesUsed[plane], buffer.bytesUsed[plane] <= memory[plane].count,
                let base = memory[plane].baseAddress
            else { return nil }
            return UnsafeRawPointer(base + offset)
        }
        guard let picture else {
            guard let first = start(0), buffer.bytesUsed[0] > buffer.dataOffset[0] else { return nil }
            return [PackedPicture.Source(start: first, stride: 0)]
        }
        var sources: [PackedPicture.Source] = []
        var memoryPlaneOf: [Int] = []
        if let chroma = entry.interleavedChroma {
            guard let luma = start(0), let split = splitSources(picture, luma: luma, chroma: chroma, start: start)
            else { return nil }
            (sources, memoryPlaneOf) = split
        } else if entry.memoryPlanes == 1 {
            guard let first = start(0) else { return nil }
            sources = picture.contiguousSources(
                start: first, bytesPerLine: planes[0].bytesPerLine, order: entry.planeOrder)
            memoryPlaneOf = sources.map { _ in 0 }
        } else {
            let order = entry.planeOrder ?? Array(0..<entry.memoryPlanes)
            guard order.count == picture.lineSizes.count else { return nil }
            for plane in picture.lineSizes.indices {
                guard let memoryPlane = order.firstIndex(of: plane), let first = start(memoryPlane) else { return nil }
                sources.append(PackedPicture.Source(start: first, stride: planes[memoryPlane].bytesPerLine))
                memoryPlaneOf.append(memoryPlane)
            }
        }
        // Every line read must lie within what the driver filled.
        for (plane, source) in sources.enumerated() {
            let memoryPlane = memoryPlaneOf[plane]
            let end = buffer.dataOffset[memoryPlane] + source.offset + picture.bytesRead(source, plane: plane)
            if end > buffer.bytesUsed[memoryPlane] { return nil }
        }
        return sources
    }

    /// The luma plane and the U and V components of a semi-planar picture's interleaved chroma
    /// plane (in its own memory plane, or after the luma lines in the same one), as planar
    /// sources; each source's memory plane beside it.
    private func splitSources(
        _ picture: PackedPicture, luma: UnsafeRawPointer, chroma: [Int], start: (Int) -> UnsafeRawPointer?
    ) -> ([PackedPicture.Source], [Int])? {
        let lumaSource = PackedPicture.Source(start: luma, stride: planes[0].bytesPerLine)
        let pairs: UnsafeRawPointer
        let stride: Int
        let memoryPlane: Int
        let offset: Int
        if entry.memoryPlanes == 2 {
            guard let second = start(1) else { return nil }
            (pairs, stride, memoryPlane, offset) = (second, planes[1].bytesPerLine, 1, 0)
        } else {
            let skip = planes[0].bytesPerLine * picture.lineCounts[0]
            (pairs, stride, memoryPlane, offset) = (luma + skip, planes[0].bytesPerLine, 0, skip)
        }
        let components = chroma.map {
            PackedPicture.Source(start: pairs + $0, stride: stride, offset: offset + $0, step: 2)
        }
        return ([lumaSource] + components, [0] + chroma.map { _ in memoryPlane })
    }

    /// Makes `packet` point into buffer `index` (`av_buffer_create`), which goes back to the
    /// driver when FFmpeg frees the packet's last reference; the packet holds this stream alive.
    private func lend(_ index: Int, start: UnsafeRawPointer, length: Int, to packet: Packet) throws(FFmpegError) {
        let lease = Unmanaged.passRetained(BufferLoan(stream: self, index: index))
        let data = UnsafeMutablePointer(mutating: start.assumingMemoryBound(to: UInt8.self))
        guard let wrapped = av_buffer_create(data, length, returnLoanedBuffer, lease.toOpaque(), 0) else {
            lease.release()
            giveBack(index)
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_buffer_create")
        }
        packet.pointer.pointee.buf = wrapped
        packet.pointer.pointee.data = wrapped.pointee.data
        packet.pointer.pointee.size = Int32(length)
    }

    /// Queues buffer `index` back; a failure (streaming stopped, the camera gone) leaves it out,
    /// and the next read reports what happened.
    func giveBack(_ index: Int) {
        try? queue(index)
    }
}

/// A buffer lent to a packet: the stream it belongs to (kept alive) and its index.
private final class BufferLoan {
    let stream: V4L2Stream
    let index: Int

    init(stream: V4L2Stream, index: Int) {
        self.stream = stream
        self.index = index
    }
}

/// The packet buffer's free callback: a C function pointer, so it captures nothing; the loan
/// comes back through `opaque`.
private let returnLoanedBuffer: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void = {
    opaque, _ in
    guard let opaque else { return }
    let loan = Unmanaged<BufferLoan>.fromOpaque(opaque).takeRetainedValue()
    loan.stream.giveBack(loan.index)
}
