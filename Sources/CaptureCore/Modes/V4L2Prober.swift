internal import CShim
import FoundationEssentials
import Glibc

/// Reads a camera's modes through V4L2 ioctls, without streaming and without changing anything.
///
/// Querying works on a camera another program is streaming: none of these ioctls claims the
/// device.
public enum CameraProber {
    /// Probes the camera at `path` (a node or a udev link to one).
    ///
    /// Wraps VIDIOC_QUERYCAP, G_INPUT, ENUMINPUT, ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS,
    /// G_FMT, G_PARM, QUERY_EXT_CTRL (QUERYCTRL on old drivers), QUERYMENU and G_EXT_CTRLS.
    /// - Throws: `CaptureError.deviceNotFound` (66), `.permissionDenied` (77), `.busy` (75),
    ///   `.notSupported` (69) for a node that is not a camera, `.failed` for other ioctl failures.
    public static func probe(path: String) throws(CaptureError) -> CameraProbe {
        let device = try V4L2Discovery.device(path: path)
        let nodePath = device.v4l2?.path ?? device.name
        do {
            let handle = try V4L2Handle(path: nodePath)
            return try probe(handle)
        } catch {
            if let failure = CaptureError.opening(device, failedWith: error.errno) { throw failure }
            throw .failed("\(nodePath): \(error.call) failed: \(error.message)")
        }
    }

    static func probe(_ handle: V4L2Handle) throws(V4L2CallError) -> CameraProbe {
        let caps = try handle.queryCapabilities()
        let nodeCaps = V4L2Capabilities.nodeCapabilities(capabilities: caps.capabilities, deviceCaps: caps.device_caps)
        var bufferTypes: [(UInt32, String)] = []
        if nodeCaps.contains(.videoCapture) {
            bufferTypes.append((V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, "video-capture"))
        }
        if nodeCaps.contains(.videoCaptureMultiplanar) {
            bufferTypes.append((V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue, "video-capture-mplane"))
        }
        let inputs = enumerateInputs(handle)
        var current: CurrentMode?
        var formats: [CameraFormat] = []
        for (type, name) in bufferTypes {
            formats += try enumerateFormats(handle, bufferType: type, typeName: name)
            if current == nil { current = currentMode(handle, bufferType: type) }
        }
        var probe = CameraProbe(
            path: handle.path, driver: decodeCString(caps.driver), card: decodeCString(caps.card),
            busInfo: decodeCString(caps.bus_info), capabilities: nodeCaps.names,
            multiplanar: nodeCaps.contains(.videoCaptureMultiplanar) && !nodeCaps.contains(.videoCapture),
            input: currentInput(handle).flatMap { index in inputs.first { $0.index == index } },
            inputs: inputs, formats: formats, current: current, controls: V4L2Controls.enumerate(handle))
        probe.bufferCount = bufferTypes.first.flatMap { bufferCount(handle, bufferType: $0.0) }
        return probe
    }

    /// The buffer counts the camera streams with: VIDIOC_REQBUFS for one MMAP buffer, which the
    /// driver raises to the fewest it takes, then for none, which frees it again; the most is
    /// the kernel's limit for one queue (videobuf2's 32). Nothing stays changed; a camera another
    /// program streams answers EBUSY, and nil is returned.
    static func bufferCount(_ handle: V4L2Handle, bufferType: UInt32) -> BufferCountRange? {
        var request = v4l2_requestbuffers()
        request.count = 1
        request.type = bufferType
        request.memory = V4L2_MEMORY_MMAP.rawValue
        guard (try? handle.ioctl(CShim_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)) != nil else { return nil }
        let fewest = Int(request.count)
        var release = v4l2_requestbuffers()
        release.type = bufferType
        release.memory = V4L2_MEMORY_MMAP.rawValue
        try? handle.ioctl(CShim_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &release)
        guard fewest > 0 else { return nil }
        return BufferCountRange(min: fewest, max: max(fewest, NativeV4L2Formats.maximumBuffers))
    }

    /// The fourcc as v4l2-ctl prints it: four characters, "-BE" when the big-endian bit is set.
    static func fourcc(_ code: UInt32) -> String {
        let bigEndianFlag: UInt32 = 1 << 31
        let bytes = (0..<4).map { UInt8((code & ~bigEndianFlag) >> (8 * $0) & 0xff) }
        let text = String(decoding: bytes.map { (0x20...0x7e).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        return code & bigEndianFlag != 0 ? text + "-BE" : text
    }

    static func enumerateFormats(_ handle: V4L2Handle, bufferType: UInt32, typeName: String) throws(V4L2CallError)
        -> [CameraFormat]
    {
        var formats: [CameraFormat] = []
        for index in 0... {
            var desc = v4l2_fmtdesc()
            desc.index = UInt32(index)
            desc.type = bufferType
            do {
                try handle.ioctl(CShim_VIDIOC_ENUM_FMT, "VIDIOC_ENUM_FMT", &desc)
            } catch  where error.errno == .invalidArgument {
                break
            }
            let code = desc.pixelformat
            let fourcc = fourcc(code)
            formats.append(
                CameraFormat(
                    fourcc: fourcc, code: code, description: decodeCString(desc.description),
                    ffmpegName: bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
                        ? NativeV4L2Formats.name(fourcc: fourcc)
                        : FFmpegV4L2Formats.name(fourcc: fourcc) ?? NativeV4L2Formats.name(fourcc: fourcc),
                    compressed: desc.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                    emulated: desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0, bufferType: typeName,
                    frameSizes: frameSizes(handle, code: code)))
        }
        return formats
    }

    static func frameSizes(_ handle: V4L2Handle, code: UInt32) -> [FrameSize] {
        var sizes: [FrameSize] = []
        for index in 0... {
            var entry = v4l2_frmsizeenum()
            entry.index = UInt32(index)
            entry.pixel_format = code
            guard (try? handle.ioctl(CShim_VIDIOC_ENUM_FRAMESIZES, "VIDIOC_ENUM_FRAMESIZES", &entry)) != nil else {
                break
            }
            switch entry.type {
            case V4L2_FRMSIZE_TYPE_DISCRETE.rawValue:
                let w = Int(entry.discrete.width)
                let h = Int(entry.discrete.height)
                sizes.append(.discrete(w, h, frameIntervals(handle, code: code, width: w, height: h)))
            default:
                let s = entry.stepwise
                let continuous = entry.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
                let max = FrameDimensions(width: Int(s.max_width), height: Int(s.max_height))
                sizes.append(
                    FrameSize(
                        type: continuous ? .continuous : .stepwise,
                        min: FrameDimensions(width: Int(s.min_width), height: Int(s.min_height)), max: max,
                        step: continuous
                            ? FrameDimensions(width: 1, height: 1)
                            : FrameDimensions(width: Int(s.step_width), height: Int(s.step_height)),
                        intervals: frameIntervals(handle, code: code, width: max.width, height: max.height)))
                return sizes  // a range is the only answer
            }
        }
        return sizes
    }

    static func frameIntervals(_ handle: V4L2Handle, code: UInt32, width: Int, height: Int) -> FrameIntervals {
        var discrete: [Rational] = []
        for index in 0... {
            var entry = v4l2_frmivalenum()
            entry.index = UInt32(index)
            entry.pixel_format = code
            entry.width = UInt32(width)
            entry.height = UInt32(height)
            guard (try? handle.ioctl(CShim_VIDIOC_ENUM_FRAMEINTERVALS, "VIDIOC_ENUM_FRAMEINTERVALS", &entry)) != nil
            else { break }
            func rational(_ f: v4l2_fract) -> Rational { Rational(Int(f.numerator), Int(f.denominator)) }
            switch entry.type {
            case V4L2_FRMIVAL_TYPE_DISCRETE.rawValue:
                discrete.append(rational(entry.discrete))
            default:
                let s = entry.stepwise
                let continuous = entry.type == V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue
                return FrameIntervals(
                    type: continuous ? .continuous : .stepwise, min: rational(s.min), max: rational(s.max),
                    step: continuous ? nil : rational(s.step))
            }
        }
        return discrete.isEmpty ? .none : FrameIntervals(type: .discrete, discrete: discrete)
    }

    static func currentMode(_ handle: V4L2Handle, bufferType: UInt32) -> CurrentMode? {
        var format = v4l2_format()
        format.type = bufferType
        guard (try? handle.ioctl(CShim_VIDIOC_G_FMT, "VIDIOC_G_FMT", &format)) != nil else { return nil }
        let mplane = bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        let code = mplane ? format.fmt.pix_mp.pixelformat : format.fmt.pix.pixelformat
        let width = Int(mplane ? format.fmt.pix_mp.width : format.fmt.pix.width)
        let height = Int(mplane ? format.fmt.pix_mp.height : format.fmt.pix.height)
        let planes: [PlaneLayout]
        if mplane {
            let pix = format.fmt.pix_mp
            planes = withUnsafeBytes(of: pix.plane_fmt) { raw in
                let list = raw.bindMemory(to: v4l2_plane_pix_format.self)
                return (0..<min(Int(pix.num_planes), list.count)).map {
                    PlaneLayout(bytesPerLine: Int(list[$0].bytesperline), sizeImage: Int(list[$0].sizeimage))
                }
            }
        } else {
            planes = [
                PlaneLayout(bytesPerLine: Int(format.fmt.pix.bytesperline), sizeImage: Int(format.fmt.pix.sizeimage))
            ]
        }
        var parm = v4l2_streamparm()
        parm.type = bufferType
        var rate: Rational?
        if (try? handle.ioctl(CShim_VIDIOC_G_PARM, "VIDIOC_G_PARM", &parm)) != nil {
            let t = parm.parm.capture.timeperframe
            if t.numerator > 0 && t.denominator > 0 { rate = Rational(Int(t.denominator), Int(t.numerator)).reduced }
        }
        return CurrentMode(fourcc: fourcc(code), width: width, height: height, frameRate: rate, planes: planes)
    }

    static func currentInput(_ handle: V4L2Handle) -> Int? {
        var index: Int32 = 0
        guard (try? handle.ioctl(CShim_VIDIOC_G_INPUT, "VIDIOC_G_INPUT", &index)) != nil else { return nil }
        return Int(index)
    }

    static func enumerateInputs(_ handle: V4L2Handle) -> [VideoInput] {
        var inputs: [VideoInput] = []
        for index in 0... {
            var input = v4l2_input()
            input.index = UInt32(index)
            guard (try? handle.ioctl(CShim_VIDIOC_ENUMINPUT, "VIDIOC_ENUMINPUT", &input)) != nil else { break }
            let type =
                switch input.type {
                case UInt32(V4L2_INPUT_TYPE_TUNER): "tuner"
                case UInt32(V4L2_INPUT_TYPE_CAMERA): "camera"
                case UInt32(V4L2_INPUT_TYPE_TOUCH): "touch"
                default: "other"
                }
            let timings = input.capabilities & UInt32(V4L2_IN_CAP_DV_TIMINGS) != 0
            inputs.append(
                VideoInput(index: index, name: decodeCString(input.name), type: type, dvTimings: timings ? true : nil))
        }
        return inputs
    }
}
