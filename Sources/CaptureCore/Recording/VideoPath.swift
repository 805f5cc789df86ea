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

    private(set) var firstTime: Int64?
    private(set) var lastTime: Int64?
    /// Frames written and frames missing, each counted once.
    private(set) var tally = FrameTally()
    var written: Int { tally.written }
    var late: Int { tally.late }
    var corrupt: Int { tally.corrupt }
    var gaps: Int { tally.gaps }
    var droppedTotal: Int { tally.dropped }
    /// The payload size of a raw input frame that is written exactly as it came (`--codec raw` with
    /// the camera's own size and pixel format); nil when frames must be decoded and converted.
    var passThroughSize: Int?

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
        tally.lastSlot.map { av_rescale_q($0 + 1, rate.inverted.av, microseconds) }
    }

    /// Frames per second measured between the first and last frame's capture times.
    var measuredRate: Double? {
        guard let firstTime, let lastTime, written > 1, lastTime > firstTime else { return nil }
        return Double(written - 1) * 1e6 / Double(lastTime - firstTime)
    }

    /// Notes packets the queue discarded because the loop fell behind.
    ///
    /// - Parameter times: their capture times, microseconds from the start of the recording; those
    ///   outside the recording (before its start, at or after its end) are not counted.
    func noteDropped(times: [Int64]) {
        guard !times.isEmpty else { return }
        // A copied stream cannot continue after a hole until the next keyframe.
        if encoder == nil { awaitingKeyframe = true }
        guard !done else { return }
        tally.countLate(times.filter { $0 >= 0 && $0 < (endTime ?? .max) }.count)
    }

    /// The slot (frame number at `rate`) a frame captured at `time` belongs in.
    private func slot(of time: Int64) -> Int64 {
        av_rescale_q_rnd(time, microseconds, rate.inverted.av, AV_ROUND_NEAR_INF)
    }

    /// Records one packet captured at `time` (microseconds from the start of the recording).
    func process(_ packet: Packet, time: Int64, mux: Mux) throws(CaptureError) {
        guard !done else { return }
        if let endTime, time >= endTime {
            // The slots up to the end that nothing filled were lost by the device.
            tally.countEnd(before: slot(of: endTime))
            done = true
            return
        }
        // Frames captured before every device delivered: not part of the recording, not a drop.
        guard time >= 0 else { return }
        if packet.size == 0 || packet.isCorrupt {
            tally.countCorrupt()
            return
        }
        let slot = slot(of: time)
        // Two frames in one slot: the second is late.
        if tally.isDuplicate(slot: slot) {
            tally.countDuplicate()
            return
        }
        if let passThroughSize, packet.size == passThroughSize {
            // Raw in, the same raw out: the packet is the frame the encoder would write, byte for
            // byte (tightly packed planes), so it goes to the muxer without a decode or a copy.
            packet.pts = slot
            packet.dts = slot
            packet.duration = 1
            packet.isKeyframe = true
            accept(slot: slot, time: time)
            try mux(packet, stream)
        } else if let encoder {
            guard let decoder else { return }
            try media("decoding video") { () throws(FFmpegError) in
                try decoder.send(packet)
                let frame = try Frame()
                while try decoder.receive(into: frame) {
                    if frame.isCorrupt {
                        tally.countCorrupt()
                        frame.unref()
                        continue
                    }
                    let picture = try convert(frame)
                    picture.pts = slot
                    // Decoders mark every raw picture as an I frame, and libx264 takes a frame's
                    // type as an order: passed on, every frame would become a keyframe (twice the
                    // size). The encoder chooses frame types itself.
                    picture.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
                    try encoder.send(picture)
                    frame.unref()
                    accept(slot: slot, time: time)
                }
            }
            try drainEncoder(mux: mux)
        } else {
            if awaitingKeyframe && !packet.isKeyframe {
                tally.countLate()
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
        tally.countWritten(slot: slot)
        if firstTime == nil { firstTime = time }
        lastTime = time
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
