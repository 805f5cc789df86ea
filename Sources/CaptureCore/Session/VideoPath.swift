import Glibc

/// Takes one camera's packets to the muxer: drops what must not be encoded, places each frame in
/// its slot on the output frame grid, decodes, converts, encodes (or copies).
///
/// Used only by the recording loop's thread.
final class VideoPath {
    typealias Mux = EncodedStream.Mux

    let stream: Int
    let rate: Rational
    private let decoder: Decoder?
    /// True when the camera sends compressed pictures (MJPEG, H.264) that are decoded.
    var decodes: Bool { decoder != nil }
    private let encoder: EncodedStream?
    private let converter: PictureConverter
    var width: Int { converter.width }
    var height: Int { converter.height }
    var pixelFormat: PixelFormat { converter.pixelFormat }
    var keepsFullRange: Bool { converter.keepsFullRange }
    /// Stop after this many frames, if set.
    let frameLimit: Int?
    /// Frames at or after this session time (microseconds from the start) are not recorded.
    var endTime: Int64?
    private(set) var done = false
    /// After dropping a copied packet, wait for a keyframe: the ones between cannot be decoded.
    private var awaitingKeyframe = false
    /// An inter-frame stream (a camera's own H.264) starts at its first keyframe.
    private var awaitingFirstKeyframe: Bool
    /// Packets before the first keyframe: not part of the recording, not drops.
    private(set) var skippedAtStart = 0
    /// MJPEG: a frame without its start and end markers was cut short on the way (players choke
    /// on it, a decoder shows half a picture).
    let checksJPEGMarkers: Bool
    /// When the last frame the path judged, and the last one it could use (not damaged, within
    /// the recording's times), arrived from the device, on the session clock; nil before the
    /// first. A camera that sends only frames nothing can use is stalled as surely as a silent
    /// one. Both are the frames' own arrival times, never the moment the loop got to them: a loop
    /// running seconds behind the camera judges the frames of seconds ago, and its lag is no
    /// sign of the device's. Frames the queue dropped for the loop's slowness count as usable.
    private(set) var lastJudgedArrival: Int64?
    private(set) var lastUsableArrival: Int64?
    /// The capture time (microseconds from the start) of the last frame the path judged: how far
    /// the loop has taken the camera's frames.
    private(set) var lastJudgedTime: Int64?

    private(set) var firstTime: Int64?
    private(set) var lastTime: Int64?
    /// Frames written and frames missing, each counted once.
    private(set) var tally: FrameTally
    var written: Int { tally.written }
    /// True when packets go to the muxer as the camera sent them (`VideoCodec.copy`, or a camera's
    /// own H.264 that nothing asked to re-encode).
    var copies: Bool { encoder == nil }
    /// When set (an encoded stream into a container without timestamps), a slot the camera left
    /// empty gets the previous picture again, as a constant-frame-rate encoder does, so the file
    /// plays as long as it was captured; `duplicated` counts those.
    var fillsEmptySlots = false
    private(set) var duplicated = 0
    /// The last picture encoded: repeated into empty slots while `fillsEmptySlots`, and into the
    /// last slot of a recording that ran to its end (`holdToEnd`).
    private var lastPicture: Frame?
    /// The slot the last picture was repeated into at the end; nil when none was.
    private var heldSlot: Int64?
    /// For a recording cut into segments: asked, with its time (microseconds from the start),
    /// before each frame that can start a segment (every frame encoded, every keyframe written as
    /// it came); true when a segment starts there, and an encoded frame is then made a keyframe.
    var cutPoint: ((Int64) throws(CaptureError) -> Bool)?

    /// The preview's pictures are taken from this camera's frames (`VideoPath+Preview`); nil: none.
    var preview: PreviewHub?

    /// The payload size of a raw input frame that is written exactly as it came (`VideoCodec.raw` with
    /// the camera's own size and pixel format); nil when frames must be decoded and converted.
    var passThroughSize: Int?

    /// - Parameters:
    ///   - decoder, encoder: nil for `VideoCodec.copy`.
    ///   - input: what the camera sends: whether it needs a keyframe to start, whether it is JPEG.
    init(
        stream: Int, rate: Rational, decoder: Decoder?, encoder: EncodedStream?, converter: PictureConverter,
        frameLimit: Int?, input: MediaStreamInfo
    ) {
        awaitingFirstKeyframe = !input.isIntraOnly
        checksJPEGMarkers = input.codec == "mjpeg"
        tally = FrameTally(frameInterval: Rescale.microseconds(ofSlot: 1, rate: rate))
        self.stream = stream
        self.rate = rate
        self.decoder = decoder
        self.encoder = encoder
        self.converter = converter
        self.frameLimit = frameLimit
    }

    /// The end of the last frame written, microseconds from the start; nil before the first.
    var endOfLastFrame: Int64? {
        tally.lastSlot.map { Rescale.microseconds(ofSlot: max($0, heldSlot ?? $0) + 1, rate: rate) }
    }

    /// Notes packets the queue discarded because the loop fell behind.
    ///
    /// - Parameters:
    ///   - times: their capture times, microseconds from the start of the recording; those
    ///     outside the recording (before its start, at or after its end) are not counted.
    ///   - before: the arrival (session clock) of the packet taken after them, if any: they came
    ///     before it.
    func noteDropped(times: [Int64], before arrival: Int64? = nil) {
        guard !times.isEmpty else { return }
        let kept = times.filter { $0 >= 0 && $0 < (endTime ?? .max) }
        let within = kept.count
        if awaitingFirstKeyframe {
            // Nothing before the first keyframe is recorded: those frames are skipped at the start
            // whether the queue or the path let them go.
            skippedAtStart += within
            if within > 0, let arrival { lastUsableArrival = max(lastUsableArrival ?? arrival, arrival) }
            return
        }
        // A copied stream cannot continue after a hole until the next keyframe.
        if encoder == nil { awaitingKeyframe = true }
        guard !done else { return }
        tally.countLate(within)
        if lag.note(kept) { fellBehind = true }
        // The camera delivered them; the recorder was too slow to take them. That is no stall of
        // the device's, however long it lasts.
        if within > 0, let arrival { lastUsableArrival = max(lastUsableArrival ?? arrival, arrival) }
    }

    /// The slot (frame number at `rate`) a frame captured at `time` belongs in.
    ///
    /// The grid is laid so that the first frame sits in the middle of its slot: a camera's frames
    /// then jitter around slot centres, never across a boundary, where half would land a slot late
    /// and leave the one before them empty.
    private func slot(of time: Int64) -> Int64 {
        Rescale.slot(at: time - (gridOffset ?? 0), rate: rate)
    }

    /// How far (microseconds) the first frame's time lies from its slot's start on a grid from 0,
    /// give or take whole slots to share the other cameras' grid; nil before the first frame.
    private var gridOffset: Int64?
    /// The grid the recording's cameras share; nil: the camera's own.
    var grid: FrameGrid?
    private var lag = LagWarning()
    /// Set once frames were dropped late for more than a second on end; the loop warns and clears it.
    var fellBehind = false

    /// A frame that lands in or before the last written frame's slot (a camera catching up after a
    /// hiccup, or a frame just across a boundary) takes the next slot, this many slots from its own
    /// at most; beyond that it is late.
    static let maxShift: Int64 = 2

    /// The slot for a frame captured at `time`, or nil when it comes too late for one.
    private func place(_ time: Int64) -> Int64? {
        if gridOffset == nil {
            let own = time - Rescale.microseconds(ofSlot: Rescale.slot(at: time, rate: rate), rate: rate)
            gridOffset = grid?.align(own, rate: rate) ?? own
        }
        let natural = slot(of: time)
        guard let last = tally.lastSlot else { return natural }
        let cadence = copies ? cadenceSlots : 1
        if cadence > 1 {
            // A copied stream from a camera slower than its nominal rate stays on its own cadence,
            // whole multiples of it apart: a reader that takes the stream's rate from the stream
            // itself (ffmpeg does) then never finds two frames in one of its ticks.
            guard natural > last - (Self.maxShift - 1) * cadence else { return nil }
            return last + cadence * max(1, Int64((Double(natural - last) / Double(cadence)).rounded()))
        }
        guard natural <= last else { return natural }
        return last + 1 - natural <= Self.maxShift ? last + 1 : nil
    }

    /// Slots from one frame to the next at the camera's own cadence: 1 at the nominal rate. Taken
    /// from the median interval once 4 intervals are known and kept after 16, so a camera whose
    /// delivery comes in bursts now and then does not move its frames between two cadences.
    private var cadenceSlots: Int64 {
        if let lockedCadence { return lockedCadence }
        guard tally.intervalCount >= 4, let median = tally.medianInterval, tally.frameInterval > 0 else { return 1 }
        let cadence = max(1, Int64((median / Double(tally.frameInterval)).rounded()))
        if tally.intervalCount >= 16 { lockedCadence = cadence }
        return cadence
    }
    private var lockedCadence: Int64?

    /// Records one packet captured at `time` (microseconds from the start of the recording) that
    /// arrived from the device at `arrival` (session clock).
    ///
    /// Whatever a device sends cannot end the recording: an empty, truncated or undecodable frame
    /// is counted corrupt and skipped. Only the encoder and the muxer throw.
    func process(_ packet: Packet, time: Int64, arrival: Int64, mux: Mux) throws(CaptureError) {
        guard !done else { return }
        lastJudgedArrival = arrival
        lastJudgedTime = time
        // The frames the device lost just before this one, as far as they fall within the recording.
        tally.countLostByDevice(packet.framesLostBefore, before: slot(of: min(time, endTime ?? time)))
        if let endTime, time >= endTime {
            // The slots up to the end that nothing filled were lost by the device.
            try reachEnd(endTime, mux: mux)
            return
        }
        // Frames captured before every device delivered: not part of the recording, not a drop.
        // One less than half a frame interval before the start is its first frame (its nearest
        // slot is 0): a microphone whose first sample came 1 ms after it left slot 0 empty.
        guard time >= 0 || Rescale.slot(at: time, rate: rate) >= 0 else { return }
        if awaitingFirstKeyframe {
            // Inter-frame codecs (a camera's own H.264) decode only from a keyframe on.
            guard packet.isKeyframe else {
                skippedAtStart += 1
                return
            }
            awaitingFirstKeyframe = false
        }
        if packet.size == 0 || packet.isCorrupt || (checksJPEGMarkers && !packet.isWholeJPEG) {
            tally.countCorrupt()
            // A copied stream cannot continue after a hole until the next keyframe.
            if encoder == nil { awaitingKeyframe = true }
            return
        }
        if checksJPEGMarkers { offerPreview(jpeg: packet, time: time) }
        let previousUsable = lastUsableArrival
        lastUsableArrival = arrival
        // A frame stamped with the very instant of the last one written is that capture again
        // (vivid repeats its first frame when its thread wakes early on a slow machine): taking the
        // next slot would push every later frame a slot early and hide the next gap.
        if time == lastTime {
            tally.countDuplicate()
            return
        }
        guard let slot = place(time) else {
            tally.countDuplicate()
            return
        }
        // A frame a little early for the slot on the end (a live source's jitter) is still past
        // it: the recording holds the slots before the end, no more.
        if let endTime, Rescale.microseconds(ofSlot: slot, rate: rate) >= endTime {
            try reachEnd(endTime, mux: mux)
            return
        }
        if let passThroughSize, packet.size == passThroughSize {
            try passThrough(packet, slot: slot, time: time, mux: mux)
        } else if let encoder, let decoder {
            try reencode(
                packet, slot: slot, time: time, encoder: encoder, decoder: decoder, previousUsable: previousUsable,
                mux: mux)
        } else {
            guard try copy(packet, slot: slot, time: time, mux: mux) else { return }
        }
        if let frameLimit, written >= frameLimit { done = true }
    }

    /// Raw in, the same raw out: the packet is the frame the encoder would write, byte for byte
    /// (tightly packed planes), so it goes to the muxer without a decode or a copy.
    private func passThrough(_ packet: Packet, slot: Int64, time: Int64, mux: Mux) throws(CaptureError) {
        packet.pts = slot
        packet.dts = slot
        packet.duration = 1
        packet.isKeyframe = true
        _ = try cutPoint?(Rescale.microseconds(ofSlot: slot, rate: rate))
        accept(slot: slot, time: time)
        try mux(packet, stream)
    }

    /// Decodes the packet, converts its pictures and encodes them, the first in `slot`.
    /// `previousUsable` is `lastUsableArrival` before this packet: it stays when every picture
    /// is corrupt.
    private func reencode(
        _ packet: Packet, slot: Int64, time: Int64, encoder: EncodedStream, decoder: Decoder, previousUsable: Int64?,
        mux: Mux
    ) throws(CaptureError) {
        var next: Int64? = slot
        let frames = try decode(packet, with: decoder)
        // Pictures the decoder concealed or built from errors are grey smears, not the camera's
        // frames: counted corrupt, never encoded, and no sign of a camera that works.
        if !frames.isEmpty && frames.allSatisfy(\.isCorrupt) { lastUsableArrival = previousUsable }
        for frame in frames {
            if frame.isCorrupt {
                tally.countCorrupt()
                continue
            }
            if !checksJPEGMarkers { offerPreview(frame, time: time) }
            // A decoder with a delay (H.264 with reordering) may give two pictures for one
            // packet; the second takes the next slot if it can.
            guard let slot = next ?? place(time) else {
                tally.countDuplicate()
                continue
            }
            next = nil
            let picture: Frame
            do {
                picture = try converter.convert(frame)
            } catch {
                // A picture the decoder made from a device's bytes in a size or format nothing
                // converts costs that frame only.
                if error.errno == .noMemory { throw .failed("converting video failed: \(error)") }
                tally.countCorrupt()
                continue
            }
            // The encoder chooses frame types itself.
            picture.clearPictureType()
            try fillEmptySlots(before: slot, encoder: encoder, mux: mux)
            picture.pts = slot
            if try cutPoint?(Rescale.microseconds(ofSlot: slot, rate: rate)) == true { picture.forceKeyframe() }
            accept(slot: slot, time: time)
            try encoder.encode(picture, mux: mux)
            lastPicture = picture
        }
    }

    /// With `fillsEmptySlots`, encodes the last picture again into each empty slot before `slot`.
    private func fillEmptySlots(before slot: Int64, encoder: EncodedStream, mux: Mux) throws(CaptureError) {
        guard fillsEmptySlots, let previous = lastPicture, let last = tally.lastSlot, slot > last + 1 else { return }
        // The picture may have been ordered a keyframe (a segment's first); its repeats are not.
        previous.clearPictureType()
        for empty in (last + 1)..<slot {
            previous.pts = empty
            try encoder.encode(previous, mux: mux)
            duplicated += 1
        }
    }

    /// Writes the camera's own packet in `slot`, on the frame grid as an encoded stream: readers
    /// that assume a constant rate (and ffmpeg's own check) see strictly increasing times however
    /// the camera's delivery jitters.
    ///
    /// - Returns: false when it was dropped (late) waiting for a keyframe after a hole.
    private func copy(_ packet: Packet, slot: Int64, time: Int64, mux: Mux) throws(CaptureError) -> Bool {
        if awaitingKeyframe && !packet.isKeyframe {
            tally.countLate()
            return false
        }
        awaitingKeyframe = false
        packet.pts = slot
        packet.dts = slot
        packet.duration = 1
        if packet.isKeyframe { _ = try cutPoint?(Rescale.microseconds(ofSlot: slot, rate: rate)) }
        accept(slot: slot, time: time)
        try mux(packet, stream)
        return true
    }

    /// Ends the stream at `endTime` (microseconds from the start), which a frame of the camera's
    /// reached: the camera delivered up to the end. When the slots before it hold nothing (the
    /// last frames were damaged, or lost), the last picture is encoded once more into the last of
    /// them, so the file lasts as long as the recording did and the empty slots are a gap in its
    /// timestamps, as a lost camera's are, rather than a file that ends early. A frame or two
    /// missing at the end is a live source's jitter, not a gap, and gets no repeat. A copied
    /// stream has no picture to repeat and ends at its last frame.
    private func reachEnd(_ endTime: Int64, mux: Mux) throws(CaptureError) {
        let end = slot(of: endTime)
        tally.countEnd(before: end, time: endTime)
        done = true
        guard let encoder, let picture = lastPicture, let last = tally.lastSlot, end - 1 - last > Self.maxShift,
            Rescale.microseconds(ofSlot: end - 1, rate: rate) < endTime
        else { return }
        picture.clearPictureType()
        picture.pts = end - 1
        try encoder.encode(picture, mux: mux)
        duplicated += 1
        heldSlot = end - 1
    }

    /// The pictures `packet` decodes to; none when the decoder rejects it, which is counted corrupt.
    ///
    /// Every decoder error but running out of memory can come from the bytes a device sent
    /// (`AVERROR_INVALIDDATA`, a missing reference, "no frame!"), so it costs that frame only.
    private func decode(_ packet: Packet, with decoder: Decoder) throws(CaptureError) -> [Frame] {
        var frames: [Frame] = []
        let previousUsable = lastUsableArrival
        do {
            try decoder.send(packet)
            while true {
                let frame = try Frame()
                guard try decoder.receive(into: frame) else { break }
                frames.append(frame)
            }
        } catch {
            if error.errno == .noMemory { throw .failed("decoding video failed: \(error)") }
            if frames.isEmpty {
                tally.countCorrupt()
                lastUsableArrival = previousUsable
            }
            LibraryLog.shared.verbose("video frame dropped: the decoder rejected it: \(error)")
        }
        return frames
    }

    private func accept(slot: Int64, time: Int64) {
        tally.countWritten(slot: slot, time: time)
        if firstTime == nil { firstTime = time }
        lastTime = time
    }

    /// Drains the encoder and lets go of the last picture, once: at the end of the recording, or
    /// when the camera's source changed mode and another chain takes over (`followSource`).
    func finish(mux: Mux) throws(CaptureError) {
        guard !finished else { return }
        finished = true
        lastPicture = nil
        try encoder?.encode(nil, mux: mux)
    }
    private var finished = false
}
