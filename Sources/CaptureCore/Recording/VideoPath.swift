internal import CFFmpeg

/// Takes one camera's packets to the muxer: drops what must not be encoded, places each frame in
/// its slot on the output frame grid, decodes, converts, encodes (or copies).
///
/// Used only by the recording loop's thread.
final class VideoPath {
    typealias Mux = (Packet, Int) throws(CaptureError) -> Void

    let stream: Int
    let rate: Rational
    private let decoder: Decoder?
    private let encoder: Encoder?
    private var scaler: Scaler?
    let width: Int
    let height: Int
    let pixelFormat: AVPixelFormat
    /// Stop after this many frames, if set.
    let frameLimit: Int?
    /// Frames at or after this session time (microseconds from the start) are not recorded.
    var endTime: Int64?
    private(set) var done = false
    /// After dropping a copied packet, wait for a keyframe: the ones between cannot be decoded.
    private var awaitingKeyframe = false

    private var lastSlot: Int64?
    private(set) var firstTime: Int64?
    private(set) var lastTime: Int64?
    private(set) var written = 0
    var late = 0
    /// How many of the queue's drops were already counted into `late`.
    var lateFromQueue = 0
    var droppedTotal: Int { late + corrupt + gaps }
    private(set) var corrupt = 0
    private(set) var gaps = 0

    /// - Parameters:
    ///   - decoder, encoder: nil for `--codec copy`.
    init(
        stream: Int, rate: Rational, decoder: Decoder?, encoder: Encoder?, width: Int, height: Int,
        pixelFormat: AVPixelFormat, frameLimit: Int?
    ) {
        self.stream = stream
        self.rate = rate
        self.decoder = decoder
        self.encoder = encoder
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.frameLimit = frameLimit
    }

    /// The end of the last frame written, microseconds from the start; nil before the first.
    var endOfLastFrame: Int64? {
        lastSlot.map { av_rescale_q($0 + 1, rate.inverted.av, microseconds) }
    }

    /// Frames per second measured between the first and last frame's capture times.
    var measuredRate: Double? {
        guard let firstTime, let lastTime, written > 1, lastTime > firstTime else { return nil }
        return Double(written - 1) * 1e6 / Double(lastTime - firstTime)
    }

    /// Notes packets the queue discarded because the loop fell behind.
    func noteDropped(_ count: Int) {
        guard count > 0 else { return }
        late += count
        if encoder == nil { awaitingKeyframe = true }
    }

    /// Records one packet captured at `time` (microseconds from the start of the recording).
    func process(_ packet: Packet, time: Int64, mux: Mux) throws(CaptureError) {
        guard !done else { return }
        if packet.size == 0 || packet.isCorrupt {
            corrupt += 1
            return
        }
        if let endTime, time >= endTime {
            done = true
            return
        }
        // Frames captured before every device delivered: not part of the recording, not a drop.
        guard time >= 0 else { return }
        let slot = av_rescale_q_rnd(time, microseconds, rate.inverted.av, AV_ROUND_NEAR_INF)
        if let lastSlot {
            // Two frames in one slot: the second is late; a skipped slot is a frame the device lost.
            if slot <= lastSlot {
                late += 1
                return
            }
            gaps += Int(slot - lastSlot - 1)
        }
        if let encoder {
            guard let decoder else { return }
            try media("decoding video") { () throws(FFmpegError) in
                try decoder.send(packet)
                let frame = try Frame()
                while try decoder.receive(into: frame) {
                    if frame.isCorrupt {
                        corrupt += 1
                        frame.unref()
                        continue
                    }
                    let picture = try convert(frame)
                    picture.pts = slot
                    try encoder.send(picture)
                    frame.unref()
                    accept(slot: slot, time: time)
                }
            }
            try drainEncoder(mux: mux)
        } else {
            if awaitingKeyframe && !packet.isKeyframe {
                late += 1
                return
            }
            awaitingKeyframe = false
            packet.pts = time
            packet.dts = time
            accept(slot: slot, time: time)
            try mux(packet, stream)
        }
        if let frameLimit, written >= frameLimit { done = true }
    }

    private func accept(slot: Int64, time: Int64) {
        lastSlot = slot
        if firstTime == nil { firstTime = time }
        lastTime = time
        written += 1
    }

    private func convert(_ frame: Frame) throws(FFmpegError) -> Frame {
        if frame.width == width && frame.height == height && frame.pixelFormat == pixelFormat { return frame }
        if scaler == nil || scaler?.sourceWidth != frame.width || scaler?.sourceHeight != frame.height
            || scaler?.sourceFormat != frame.pixelFormat
        {
            scaler = try Scaler(
                sourceWidth: frame.width, sourceHeight: frame.height, sourceFormat: frame.pixelFormat,
                width: width, height: height, pixelFormat: pixelFormat)
        }
        return try scaler!.scale(frame)
    }

    /// Drains the encoder at the end of the recording.
    func finish(mux: Mux) throws(CaptureError) {
        guard let encoder else { return }
        try media("flushing the video encoder") { () throws(FFmpegError) in try encoder.send(nil) }
        try drainEncoder(mux: mux)
    }

    private func drainEncoder(mux: Mux) throws(CaptureError) {
        guard let encoder else { return }
        while true {
            let packet: Packet
            do {
                packet = try Packet()
                guard try encoder.receive(into: packet) else { return }
            } catch {
                throw .failed("encoding video failed: \(error)")
            }
            try mux(packet, stream)
        }
    }
}

/// Runs FFmpeg work, turning its error into the user's error for `what`.
func media<T>(_ what: String, _ body: () throws(FFmpegError) -> T) throws(CaptureError) -> T {
    do {
        return try body()
    } catch {
        throw .failed("\(what) failed: \(error)")
    }
}
