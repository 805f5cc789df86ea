internal import CFFmpeg
internal import CShim
import Glibc

/// The signal on a digital video input (HDMI, DVI, SDI) as its DV timings give it: what an HDMI
/// grabber receives from its source.
struct SignalTimings: Hashable, Sendable, CustomStringConvertible {
    /// Active pixels per line and lines per frame.
    var width: Int
    var height: Int
    var interlaced: Bool
    /// Frames per second: the pixel clock over the whole frame, blanking included; nil when the
    /// driver gives no pixel clock.
    var frameRate: Rational?

    /// From a `v4l2_bt_timings` (VIDIOC_G_DV_TIMINGS, VIDIOC_QUERY_DV_TIMINGS).
    init(_ bt: v4l2_bt_timings) {
        width = Int(bt.width)
        height = Int(bt.height)
        interlaced = bt.interlaced == UInt32(V4L2_DV_INTERLACED)
        let lineLength = Int(bt.width + bt.hfrontporch + bt.hsync + bt.hbackporch)
        var lines = Int(bt.height + bt.vfrontporch + bt.vsync + bt.vbackporch)
        if interlaced { lines += Int(bt.il_vfrontporch + bt.il_vsync + bt.il_vbackporch) }
        frameRate =
            bt.pixelclock > 0 && lineLength * lines > 0
            ? Rational(Int(bt.pixelclock), lineLength * lines).reduced : nil
    }

    init(width: Int, height: Int, interlaced: Bool, frameRate: Rational?) {
        self.width = width
        self.height = height
        self.interlaced = interlaced
        self.frameRate = frameRate
    }

    /// "1280x720 at 60 fps", "1920x1080 interlaced at 29.97 fps".
    var description: String {
        let size = "\(width)x\(height)" + (interlaced ? " interlaced" : "")
        guard let frameRate else { return size }
        return "\(size) at \(frameRate.decimalDescription) fps"
    }
}

/// What the camera's source did while streaming (V4L2_EVENT_SOURCE_CHANGE), for the message
/// that ends its recording or has it waited for.
enum SourceChange: Hashable, Sendable {
    /// It now sends another mode: the one streamed and the new one, as `SignalTimings` or
    /// "NM12 640x480" describe them.
    case changed(from: String, to: String)
    /// Its signal went away: why, in a few words ("no signal", "no lock").
    case signalLost(String)
}

/// Source changes and end of stream: the events a camera's driver queues beside its buffers.
extension V4L2Stream {
    /// Subscribes to source changes of the input being captured and to end of stream
    /// (VIDIOC_SUBSCRIBE_EVENT: V4L2_EVENT_SOURCE_CHANGE, V4L2_EVENT_EOS), and reads the signal
    /// on an input with DV timings (VIDIOC_G_DV_TIMINGS answers; VIDIOC_QUERY_DV_TIMINGS gives
    /// what the source sends now). A driver that sends neither event refuses the subscription,
    /// which changes nothing.
    ///
    /// - Returns: the input's signal; nil for an input without DV timings (a webcam).
    /// - Throws: `V4L2CallError` of VIDIOC_QUERY_DV_TIMINGS when the input has no usable signal
    ///   (ENOLINK: none, ENOLCK: unstable, ERANGE: out of range).
    static func watchSource(_ handle: V4L2Handle) throws(V4L2CallError) -> SignalTimings? {
        var input: Int32 = 0
        if (try? handle.ioctl(CShim_VIDIOC_G_INPUT, "VIDIOC_G_INPUT", &input)) == nil { input = 0 }
        for (type, id) in [(V4L2_EVENT_SOURCE_CHANGE, UInt32(input)), (V4L2_EVENT_EOS, 0)] {
            var subscription = v4l2_event_subscription()
            subscription.type = UInt32(type)
            subscription.id = id
            try? handle.ioctl(CShim_VIDIOC_SUBSCRIBE_EVENT, "VIDIOC_SUBSCRIBE_EVENT", &subscription)
        }
        var set = v4l2_dv_timings()
        guard (try? handle.ioctl(CShim_VIDIOC_G_DV_TIMINGS, "VIDIOC_G_DV_TIMINGS", &set)) != nil else { return nil }
        return try querySignal(handle) ?? SignalTimings(set.bt)
    }

    /// Sets the input's timings to what its source sends now (VIDIOC_QUERY_DV_TIMINGS, then
    /// VIDIOC_S_DV_TIMINGS), while nothing streams: the driver then streams the new mode. Done
    /// after a source change, as v4l2-ctl --set-dv-bt-timings query does.
    ///
    /// - Throws: the failing call's `V4L2CallError` (ENOLINK, ENOLCK, ERANGE for no usable signal).
    static func adoptSignal(_ handle: V4L2Handle) throws(V4L2CallError) {
        var detected = v4l2_dv_timings()
        try handle.ioctl(CShim_VIDIOC_QUERY_DV_TIMINGS, "VIDIOC_QUERY_DV_TIMINGS", &detected)
        try handle.ioctl(CShim_VIDIOC_S_DV_TIMINGS, "VIDIOC_S_DV_TIMINGS", &detected)
    }

    /// What the source sends now (VIDIOC_QUERY_DV_TIMINGS); nil when the driver cannot tell.
    ///
    /// - Throws: the call's `V4L2CallError` for no signal (ENOLINK), no lock (ENOLCK) or a signal
    ///   out of range (ERANGE).
    private static func querySignal(_ handle: V4L2Handle) throws(V4L2CallError) -> SignalTimings? {
        var detected = v4l2_dv_timings()
        do {
            try handle.ioctl(CShim_VIDIOC_QUERY_DV_TIMINGS, "VIDIOC_QUERY_DV_TIMINGS", &detected)
        } catch {
            if [ENOLINK, ENOLCK, ERANGE].contains(error.errno.rawValue) { throw error }
            return nil
        }
        return SignalTimings(detected.bt)
    }

    /// Why a VIDIOC_QUERY_DV_TIMINGS failure means no usable signal, in a few words.
    static func signalProblem(_ error: V4L2CallError) -> String {
        switch error.errno.rawValue {
        case ENOLINK: "no signal"
        case ENOLCK: "the signal is unstable (no lock)"
        case ERANGE: "the signal is out of range"
        default: error.message
        }
    }

    /// Takes the events the driver queued (VIDIOC_DQEVENT until none is left). A source change
    /// that leaves the mode as it was (a colorspace change, a cable replugged with the same
    /// signal) is no change.
    ///
    /// - Returns: true at end of stream (V4L2_EVENT_EOS).
    /// - Throws: `FFmpegError` with `AVERROR_INPUT_CHANGED` when the source now sends another
    ///   mode, with ENOLINK when its signal went away (`sourceChange` says which and how).
    func takeEvents() throws(FFmpegError) -> Bool {
        while true {
            var event = v4l2_event()
            guard (try? handle.ioctl(CShim_VIDIOC_DQEVENT, "VIDIOC_DQEVENT", &event)) != nil else { return false }
            if event.type == UInt32(V4L2_EVENT_EOS) { return true }
            guard event.type == UInt32(V4L2_EVENT_SOURCE_CHANGE),
                event.u.src_change.changes & UInt32(V4L2_EVENT_SRC_CH_RESOLUTION) != 0,
                let change = sourceChangeNow()
            else { continue }
            counters.withLock { $0.sourceChange = change }
            switch change {
            case .changed: throw FFmpegError(CFFmpeg_AVERROR_INPUT_CHANGED, call: "VIDIOC_DQEVENT")
            case .signalLost: throw FFmpegError(CFFmpeg_AVERROR(ENOLINK), call: "VIDIOC_QUERY_DV_TIMINGS")
            }
        }
    }

    /// How the source differs from what is streamed, after a source change event; nil when it
    /// does not.
    private func sourceChangeNow() -> SourceChange? {
        if let signal {
            do throws(V4L2CallError) {
                guard let now = try Self.querySignal(handle), now != signal else { return nil }
                return .changed(from: signal.description, to: now.description)
            } catch {
                return .signalLost(Self.signalProblem(error))
            }
        }
        // An input without DV timings: the format the driver would stream now.
        var format = v4l2_format()
        format.type = bufferType
        guard (try? handle.ioctl(CShim_VIDIOC_G_FMT, "VIDIOC_G_FMT", &format)) != nil else { return nil }
        let multiplanar = bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        let (code, width, height) =
            multiplanar
            ? (format.fmt.pix_mp.pixelformat, format.fmt.pix_mp.width, format.fmt.pix_mp.height)
            : (format.fmt.pix.pixelformat, format.fmt.pix.width, format.fmt.pix.height)
        let now = "\(CameraProber.fourcc(code).trimmingTrailingSpaces) \(width)x\(height)"
        let streamed = "\(request.fourcc.trimmingTrailingSpaces) \(request.width)x\(request.height)"
        return now == streamed ? nil : .changed(from: streamed, to: now)
    }

    /// What the source did that ended the stream, if it did.
    var sourceChange: SourceChange? { counters.withLock { $0.sourceChange } }
}
