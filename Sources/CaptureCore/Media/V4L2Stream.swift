internal import CShim
import Glibc
import Synchronization

/// Why a camera could not be set up for streaming by `V4L2Stream`.
enum V4L2StreamError: Error, Equatable {
    /// A system call failed: which one, and its errno.
    case call(V4L2CallError)
    /// The driver answered VIDIOC_S_FMT with another format or size than asked (both as
    /// "NM12 640x480").
    case formatRefused(asked: String, got: String)
}

/// A camera streaming through V4L2 MMAP buffers, read without libavdevice: the one owner of the
/// streaming file descriptor, the driver's buffers and their mappings.
///
/// `init` opens the node, sets the format (`VIDIOC_S_FMT`, single-planar or multiplanar) and the
/// frame rate (`VIDIOC_S_PARM`), asks for buffers (`VIDIOC_REQBUFS`), maps each of their memory
/// planes (`VIDIOC_QUERYBUF`, mmap(2)), queues them all (`VIDIOC_QBUF`) and starts streaming
/// (`VIDIOC_STREAMON`). `read(into:interrupt:)` waits with poll(2) and dequeues one buffer
/// (`VIDIOC_DQBUF`) into a packet. A packet that maps a buffer (no copy) holds this object alive
/// and queues the buffer back when FFmpeg frees it, from whichever thread does; so the stream
/// stops (`VIDIOC_STREAMOFF`), the buffers are unmapped and the node closed only once the last
/// such packet is gone, in `deinit`.
///
/// Thread-safety: `read` is called from one thread at a time (the reader's); buffers are queued
/// back from any thread; the counters are behind a lock.
final class V4L2Stream: @unchecked Sendable {
    /// What to stream: the camera mode and the buffers to ask for.
    struct Request: Hashable, Sendable {
        var path: String
        var fourcc: String
        var width: Int
        var height: Int
        /// Frames per second to set; nil leaves the driver's.
        var frameRate: Rational?
        /// Capture through `V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE`.
        var multiplanar: Bool
        /// Buffers to ask for (`NativeV4L2Formats.bufferCount`).
        var buffers: Int
        /// Set the input's DV timings to what its source sends now before the format, as after a
        /// source change (`adoptSignal`); with `sizeFollowsSignal`, the frame size becomes the
        /// new signal's (a grabber that streamed its signal's own size, not one it scaled to).
        var adoptsSignal = false
        var sizeFollowsSignal = false
    }

    /// One memory plane as the driver lays it out (VIDIOC_G_FMT after VIDIOC_S_FMT).
    struct Plane: Hashable, Sendable {
        /// Bytes from the start of one line to the next; at least the width's bytes.
        var bytesPerLine: Int
        /// Bytes of the whole plane.
        var sizeImage: Int
    }

    let request: Request
    let entry: NativeV4L2Formats.Entry
    /// The memory planes of each buffer, in the driver's order.
    let planes: [Plane]
    /// How many buffers the driver gave (it may change the count asked for).
    let bufferCount: Int
    let handle: V4L2Handle
    let bufferType: UInt32
    /// Each buffer's mapped memory planes: `mappings[buffer][plane]`.
    let mappings: [[UnsafeMutableRawBufferPointer]]
    /// How the packed picture of `entry.name` is laid out; nil for a compressed format.
    let picture: PackedPicture?
    /// The signal on the input when streaming started, for an input with DV timings (an HDMI
    /// grabber); nil for the others (`watchSource`).
    let signal: SignalTimings?
    /// True when the driver writes into buffers the reader has dequeued: v4l2loopback keeps its
    /// buffers a ring its writer goes round whatever the readers hold, so a picture lent from one
    /// changes under the encoder. Every picture of such a driver is copied.
    let overwritesDequeued: Bool

    /// Counters shared by the reader thread and the threads that give buffers back.
    struct Counters {
        /// Buffers with the driver.
        var queued = 0
        var sequence = SequenceGaps()
        var streaming = false
        /// What the source did that ended the stream (`takeEvents`).
        var sourceChange: SourceChange?
    }
    let counters = Mutex(Counters())

    /// Opens `request.path` and starts streaming it, as the type's summary says.
    ///
    /// - Throws: `V4L2StreamError.call` naming the call that failed (EBUSY from VIDIOC_S_FMT or
    ///   VIDIOC_REQBUFS when another program streams the camera; VIDIOC_QUERY_DV_TIMINGS when an
    ///   HDMI input has no usable signal); `.formatRefused` when the driver changed the format or
    ///   size.
    init(_ request: Request) throws(V4L2StreamError) {
        guard let entry = NativeV4L2Formats.entry(fourcc: request.fourcc) else {
            throw .formatRefused(asked: request.fourcc, got: "a format capture does not read")
        }
        var request = request
        let handle: V4L2Handle
        do { handle = try V4L2Handle(path: request.path) } catch { throw .call(error) }
        do {
            if request.adoptsSignal { try Self.adoptSignal(handle) }
            signal = try Self.watchSource(handle)
        } catch {
            throw .call(error)
        }
        if request.sizeFollowsSignal, let signal { (request.width, request.height) = (signal.width, signal.height) }
        let driver = (try? handle.queryCapabilities()).map { decodeCString($0.driver) }
        overwritesDequeued = driver == "v4l2 loopback"
        let type =
            request.multiplanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let planes = try Self.setFormat(handle, type: type, request: request)
        Self.setFrameRate(handle, type: type, rate: request.frameRate)
        let (count, mappings) = try Self.mapBuffers(
            handle, type: type, count: request.buffers, planes: entry.memoryPlanes)
        self.request = request
        self.entry = entry
        self.planes = planes
        self.bufferCount = count
        self.handle = handle
        self.bufferType = type
        self.mappings = mappings
        self.picture =
            entry.compressed
            ? nil : PackedPicture(name: entry.name, width: request.width, height: request.height)
        for index in 0..<count {
            do throws(V4L2CallError) { try queue(index) } catch { throw .call(error) }
        }
        var streamType = Int32(bitPattern: type)
        do throws(V4L2CallError) {
            try handle.ioctl(CShim_VIDIOC_STREAMON, "VIDIOC_STREAMON", &streamType)
        } catch {
            throw .call(error)
        }
        counters.withLock { $0.streaming = true }
    }

    deinit {
        var type = Int32(bitPattern: bufferType)
        try? handle.ioctl(CShim_VIDIOC_STREAMOFF, "VIDIOC_STREAMOFF", &type)
        for buffer in mappings {
            for plane in buffer { munmap(plane.baseAddress, plane.count) }
        }
    }

    /// "NM12 640x480".
    private static func describe(fourcc: UInt32, width: UInt32, height: UInt32) -> String {
        "\(CameraProber.fourcc(fourcc).trimmingTrailingSpaces) \(width)x\(height)"
    }

    /// VIDIOC_S_FMT, checked: the driver must keep the format and size.
    ///
    /// - Returns: the memory planes the driver lays out.
    private static func setFormat(_ handle: V4L2Handle, type: UInt32, request: Request) throws(V4L2StreamError)
        -> [Plane]
    {
        var format = v4l2_format()
        format.type = type
        let code = NativeV4L2Formats.code(fourcc: request.fourcc)
        if type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue {
            format.fmt.pix_mp.width = UInt32(request.width)
            format.fmt.pix_mp.height = UInt32(request.height)
            format.fmt.pix_mp.pixelformat = code
            format.fmt.pix_mp.field = V4L2_FIELD_ANY.rawValue
        } else {
            format.fmt.pix.width = UInt32(request.width)
            format.fmt.pix.height = UInt32(request.height)
            format.fmt.pix.pixelformat = code
            format.fmt.pix.field = V4L2_FIELD_ANY.rawValue
        }
        do { try handle.ioctl(CShim_VIDIOC_S_FMT, "VIDIOC_S_FMT", &format) } catch { throw .call(error) }
        let asked = describe(fourcc: code, width: UInt32(request.width), height: UInt32(request.height))
        if type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue {
            let pix = format.fmt.pix_mp
            let got = describe(fourcc: pix.pixelformat, width: pix.width, height: pix.height)
            guard got == asked else { throw .formatRefused(asked: asked, got: got) }
            return withUnsafeBytes(of: pix.plane_fmt) { raw in
                let list = raw.bindMemory(to: v4l2_plane_pix_format.self)
                return (0..<Int(pix.num_planes)).map {
                    Plane(bytesPerLine: Int(list[$0].bytesperline), sizeImage: Int(list[$0].sizeimage))
                }
            }
        }
        let pix = format.fmt.pix
        let got = describe(fourcc: pix.pixelformat, width: pix.width, height: pix.height)
        guard got == asked else { throw .formatRefused(asked: asked, got: got) }
        return [Plane(bytesPerLine: Int(pix.bytesperline), sizeImage: Int(pix.sizeimage))]
    }

    /// VIDIOC_S_PARM with the frame interval of `rate`. A driver without rates (an HDMI input
    /// follows its signal) refuses it, which changes nothing: the refusal is ignored.
    private static func setFrameRate(_ handle: V4L2Handle, type: UInt32, rate: Rational?) {
        guard let rate, rate.numerator > 0 else { return }
        var parameters = v4l2_streamparm()
        parameters.type = type
        parameters.parm.capture.timeperframe = v4l2_fract(
            numerator: UInt32(rate.denominator), denominator: UInt32(rate.numerator))
        try? handle.ioctl(CShim_VIDIOC_S_PARM, "VIDIOC_S_PARM", &parameters)
    }

    /// VIDIOC_REQBUFS for `count` MMAP buffers, then VIDIOC_QUERYBUF and mmap(2) of each of their
    /// `planes` memory planes.
    ///
    /// - Returns: the count the driver gave and the mappings.
    private static func mapBuffers(_ handle: V4L2Handle, type: UInt32, count: Int, planes: Int)
        throws(V4L2StreamError) -> (Int, [[UnsafeMutableRawBufferPointer]])
    {
        var buffers = v4l2_requestbuffers()
        buffers.count = UInt32(count)
        buffers.type = type
        buffers.memory = V4L2_MEMORY_MMAP.rawValue
        do { try handle.ioctl(CShim_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &buffers) } catch { throw .call(error) }
        guard buffers.count > 0 else {
            throw .call(V4L2CallError(call: "VIDIOC_REQBUFS", errno: .noMemory))
        }
        var mappings: [[UnsafeMutableRawBufferPointer]] = []
        // On a failure part way, what was mapped is unmapped before the error goes up.
        func unmapAll() {
            for buffer in mappings { for plane in buffer { munmap(plane.baseAddress, plane.count) } }
        }
        for index in 0..<Int(buffers.count) {
            do throws(V4L2CallError) {
                let places = try query(handle, type: type, index: index, planes: planes)
                var mapped: [UnsafeMutableRawBufferPointer] = []
                for (offset, length) in places {
                    let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, handle.fd, off_t(offset))
                    guard let address, address != MAP_FAILED else {
                        let error = V4L2CallError(call: "mmap", errno: .current)
                        for plane in mapped { munmap(plane.baseAddress, plane.count) }
                        throw error
                    }
                    mapped.append(UnsafeMutableRawBufferPointer(start: address, count: length))
                }
                mappings.append(mapped)
            } catch {
                unmapAll()
                throw .call(error)
            }
        }
        return (Int(buffers.count), mappings)
    }

    /// VIDIOC_QUERYBUF of buffer `index`: where each memory plane is to be mapped.
    ///
    /// - Returns: each plane's mmap offset and length.
    private static func query(_ handle: V4L2Handle, type: UInt32, index: Int, planes: Int) throws(V4L2CallError)
        -> [(offset: UInt32, length: Int)]
    {
        var buffer = v4l2_buffer()
        buffer.type = type
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.index = UInt32(index)
        guard type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue else {
            try handle.ioctl(CShim_VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", &buffer)
            return [(buffer.m.offset, Int(buffer.length))]
        }
        var list = [v4l2_plane](repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
        let result: Int32 = list.withUnsafeMutableBufferPointer { pointer in
            buffer.m.planes = pointer.baseAddress
            buffer.length = UInt32(pointer.count)
            return withUnsafeMutablePointer(to: &buffer) { CShim_ioctl(handle.fd, CShim_VIDIOC_QUERYBUF, $0) }
        }
        if result < 0 { throw V4L2CallError(call: "VIDIOC_QUERYBUF", errno: .current) }
        guard Int(buffer.length) == planes else {
            throw V4L2CallError(call: "VIDIOC_QUERYBUF", errno: .invalidArgument)
        }
        return (0..<planes).map { (list[$0].m.mem_offset, Int(list[$0].length)) }
    }

    /// Hands buffer `index` to the driver (VIDIOC_QBUF).
    ///
    /// - Throws: `V4L2CallError` from VIDIOC_QBUF (EINVAL once streaming stopped, ENODEV once
    ///   the camera is gone).
    func queue(_ index: Int) throws(V4L2CallError) {
        var buffer = v4l2_buffer()
        buffer.type = bufferType
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.index = UInt32(index)
        var result: Int32
        if bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue {
            var list = [v4l2_plane](repeating: v4l2_plane(), count: entry.memoryPlanes)
            result = list.withUnsafeMutableBufferPointer { pointer in
                buffer.m.planes = pointer.baseAddress
                buffer.length = UInt32(pointer.count)
                return withUnsafeMutablePointer(to: &buffer) { CShim_ioctl(handle.fd, CShim_VIDIOC_QBUF, $0) }
            }
        } else {
            result = withUnsafeMutablePointer(to: &buffer) { CShim_ioctl(handle.fd, CShim_VIDIOC_QBUF, $0) }
        }
        if result < 0 { throw V4L2CallError(call: "VIDIOC_QBUF", errno: .current) }
        counters.withLock { $0.queued += 1 }
    }

    /// True once the driver has shown that it numbers its buffers (`SequenceGaps.numbered`): the
    /// packets' `framesLostBefore` then count what it lost.
    var numbersBuffers: Bool { counters.withLock { $0.sequence.numbered } }
}
