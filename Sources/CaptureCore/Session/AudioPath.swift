internal import CFFmpeg

/// Takes one microphone's packets to the muxer: decodes, resamples to the encoder's format, rate
/// and channels while following the device's clock, cuts exact frame sizes, encodes.
///
/// Audio is never dropped: drift is absorbed by resampling, an overrun's gap is filled with
/// silence (both in `Resampler`). Used only by the recording loop's thread.
final class AudioPath {
    typealias Mux = EncodedStream.Mux

    /// A gap in the device's timestamps larger than this (microseconds) counts as an overrun.
    static let overrunThreshold: Int64 = 100_000

    var stream: Int { output.stream }
    private let decoder: Decoder
    private let output: EncodedStream
    var encoder: Encoder { output.encoder }
    private var resampler: Resampler?
    private let fifo: AudioFIFO
    /// Samples after this session time (microseconds from the start) are not recorded.
    var endTime: Int64?
    private(set) var done = false

    private var nextPts: Int64?
    private var expectedNext: Int64?
    /// When the device's own first sample was captured (microseconds from the start); the file's
    /// audio starts at 0 all the same (`leadingSilence`).
    private(set) var firstTime: Int64?
    /// Microseconds of silence put before the device's first sample: a microphone whose first
    /// data came after the recording started (a sound server's first fragment, up to the old
    /// latency of its sink late) starts the file's audio with silence, so both tracks start at 0
    /// and stay in step, as they do across a lost microphone's gap.
    private(set) var leadingSilence: Int64 = 0
    private(set) var samples: Int64 = 0
    private(set) var overruns = 0
    /// When the device was last lost (microseconds from the start), with `--reconnect`: the gap
    /// around it is the device's absence, reported as such, not an overrun.
    var lastLoss: Int64?

    /// What the encoder writes, as planned: for the summary.
    let plan: AudioEncoderPlan
    /// The device's levels, from its own samples: the silence put in for a gap is not its.
    var meter: LevelMeter

    init(decoder: Decoder, output: EncodedStream, plan: AudioEncoderPlan, meter: LevelMeter) throws(CaptureError) {
        self.decoder = decoder
        self.output = output
        self.plan = plan
        self.meter = meter
        fifo = try media("setting up audio") { () throws(FFmpegError) in try AudioFIFO(for: output.encoder) }
    }

    /// Records one packet whose first sample was captured at `time` (microseconds from the start).
    func process(_ packet: Packet, time: Int64, arrival: Int64, mux: Mux) throws(CaptureError) {
        guard !done, packet.size > 0 else { return }
        try media("converting audio") { () throws(FFmpegError) in
            try decoder.send(packet)
            let frame = try Frame()
            while !done, try decoder.receive(into: frame) {
                try take(frame, time: time)
                frame.unref()
            }
        }
        try emit(all: false, mux: mux)
    }

    /// Records silence from where the device's audio stopped up to `time` (microseconds from
    /// the start): the gap of a device that was lost, as it goes, so that the file's audio keeps
    /// pace with the session clock while the device is away (segments are cut on time, the muxer
    /// need not hold the video back, a recording that ends meanwhile lasts as long as it ran).
    /// The device's own audio, once back, goes on from where it starts; the resampler drops
    /// what overlaps the silence. Nothing before the device's first block.
    func fillSilence(until time: Int64, mux: Mux) throws(CaptureError) {
        guard !done, let next = expectedNext, let input = inputShape, time - next >= Self.silenceStep else { return }
        let count = Int((time - next) * Int64(input.rate) / 1_000_000)
        try media("converting audio") { () throws(FFmpegError) in
            var layout = AVChannelLayout()
            av_channel_layout_default(&layout, Int32(input.channels))
            let frame = try Frame(samples: count, format: input.format, layout: layout, sampleRate: input.rate)
            frame.silence()
            try take(frame, time: next, filled: true)
        }
        try emit(all: false, mux: mux)
    }

    /// Where the device's own last block ended (microseconds from the start), silence aside.
    private var deviceEnd: Int64?

    /// The least silence (microseconds) `fillSilence` adds at a time.
    static let silenceStep: Int64 = 20_000

    /// The device's decoded sample format, channel count and rate: what its silence is made of.
    private var inputShape: (format: AVSampleFormat, channels: Int, rate: Int)?

    /// Takes a block captured at `time`; `filled`: silence made by `fillSilence`.
    private func take(_ frame: Frame, time: Int64, filled: Bool = false) throws(FFmpegError) {
        let inputRate = Int64(frame.sampleRate)
        let count = Int64(frame.sampleCount)
        if inputShape == nil { inputShape = (frame.sampleFormat, frame.channelCount, frame.sampleRate) }
        // A block wholly captured before the recording started is skipped; one that straddles
        // the start is cut at it below, so audio starts at 0 rather than a block later.
        guard count > 0, inputRate > 0, time + count * 1_000_000 / inputRate > 0 else { return }
        if !filled { measure(frame, time: time) }
        if !filled, expectedNext == nil, time >= Self.silenceStep {
            var layout = AVChannelLayout()
            av_channel_layout_default(&layout, Int32(frame.channelCount))
            let lead = try Frame(
                samples: Int(time * inputRate / 1_000_000), format: frame.sampleFormat, layout: layout,
                sampleRate: frame.sampleRate)
            lead.silence()
            try take(lead, time: 0, filled: true)
            leadingSilence = time
        }
        if !filled, let expectedNext, time - expectedNext > Self.overrunThreshold,
            lastLoss.map({ $0 < (deviceEnd ?? expectedNext) - Self.overrunThreshold || $0 > time }) ?? true
        {
            overruns += 1
        }
        expectedNext = time + count * 1_000_000 / inputRate
        if !filled { deviceEnd = expectedNext }
        if firstTime == nil && !filled { firstTime = max(0, time) }
        if resampler == nil { resampler = try Resampler(from: frame, to: encoder) }
        let first = resampler!.nextOutputSample(capturedAt: time)
        if nextPts == nil { nextPts = first }
        if let converted = try resampler!.convert(frame) {
            try fifo.write(converted, samples: converted.sampleCount)
        }
        if let pts = nextPts, pts < 0 {
            let cut = min(Int(-pts), fifo.count)
            try fifo.drain(samples: cut)
            nextPts = pts + Int64(cut)
        }
        // The end is cut where the file's audio reaches it, not where a device timestamp says:
        // while the resampler is still catching up with a device whose clock runs apart from its
        // sample count, the two differ by tens of milliseconds, and the audio ended that much
        // before the video.
        if let limit = endSample, let pts = nextPts, pts + Int64(fifo.count) >= limit { done = true }
    }

    /// Measures the device's samples that fall within the recording: from its start, and before
    /// its end once that is known.
    private func measure(_ frame: Frame, time: Int64) {
        let rate = Int64(frame.sampleRate)
        // Sample positions from microsecond times, to the nearest sample.
        let skip = time < 0 ? Int((-time * rate + 500_000) / 1_000_000) : 0
        var count = frame.sampleCount - skip
        if let endTime { count = min(count, Int(max(0, ((endTime - time) * rate + 500_000) / 1_000_000)) - skip) }
        guard count > 0 else { return }
        meter.take(frame, time: time + Int64(skip) * 1_000_000 / rate, from: skip, count: count)
    }

    /// `endTime` as a sample position in the file.
    private var endSample: Int64? {
        endTime.map { Rescale.sample(at: $0, sampleRate: encoder.sampleRate) }
    }

    /// Encodes what the FIFO holds in the encoder's frame size; `all` also sends the last,
    /// shorter frame.
    private func emit(all: Bool, mux: Mux) throws(CaptureError) {
        let size = encoder.frameSize > 0 ? encoder.frameSize : 4096
        while fifo.count >= size || ((all || done) && fifo.count > 0) {
            var wanted = size
            if let limit = endSample {
                let left = limit - (nextPts ?? 0)
                if left <= 0 {
                    // Past the end: what the FIFO and the resampler still hold is not recorded.
                    try media("converting audio") { () throws(FFmpegError) in try fifo.drain(samples: fifo.count) }
                    break
                }
                // A frame-size encoder (AAC, Opus) still takes whole frames; only the last may be short.
                if left < Int64(wanted) && (encoder.frameSize == 0 || fifo.count >= left) { wanted = Int(left) }
            }
            if !all && fifo.count < wanted { break }
            let read = try media("encoding audio") { () throws(FFmpegError) in try fifo.read(samples: wanted) }
            guard let frame = read else { break }
            frame.pts = nextPts ?? 0
            nextPts = (nextPts ?? 0) + Int64(frame.sampleCount)
            samples += Int64(frame.sampleCount)
            try output.encode(frame, mux: mux)
        }
    }

    /// Drains the resampler, the FIFO and the encoder at the end of the recording.
    func finish(mux: Mux) throws(CaptureError) {
        if let resampler {
            try media("converting audio") { () throws(FFmpegError) in
                while let rest = try resampler.convert(nil) { try fifo.write(rest, samples: rest.sampleCount) }
            }
        }
        try emit(all: true, mux: mux)
        try output.encode(nil, mux: mux)
    }
}
