internal import CFFmpeg

/// Per-channel peak, mean square and clipped-sample count of decoded audio, on a scale where full
/// scale is 1: the numbers a level meter shows.
///
/// Reads a frame's samples in place (`AVFrame.extended_data`) in any of FFmpeg's packed or planar
/// sample formats; nothing is converted or copied. A value type: each owner keeps its own.
struct SampleLevels: Equatable, Sendable {
    /// One channel's numbers.
    struct Channel: Equatable, Sendable {
        /// The largest absolute sample value, 0...1 (float formats may exceed 1).
        var peak = 0.0
        /// The sum of the squared sample values.
        var sumOfSquares = 0.0
        /// Samples at or past full scale: the format's extreme values, or a float's magnitude ≥ 1.
        var clipped = 0
    }

    private(set) var channels: [Channel] = []
    /// Samples per channel taken.
    private(set) var samples: Int64 = 0

    /// The root mean square of channel `index`, 0...1; 0 before any sample.
    func rms(_ index: Int) -> Double {
        samples > 0 ? (channels[index].sumOfSquares / Double(samples)).squareRoot() : 0
    }

    /// Takes `count` samples per channel of a decoded audio frame from sample `offset` on (nil:
    /// to its end). A frame whose channel count differs from what came before starts the count
    /// again.
    mutating func add(_ frame: Frame, from offset: Int = 0, count: Int? = nil) {
        let count = min(count ?? frame.sampleCount - offset, frame.sampleCount - offset)
        let channelCount = frame.channelCount
        guard offset >= 0, count > 0, channelCount > 0, let data = frame.pointer.pointee.extended_data else { return }
        if channels.count != channelCount { self = SampleLevels(channelCount: channelCount) }
        let format = frame.sampleFormat
        let planar = av_sample_fmt_is_planar(format) != 0
        let packed = av_get_packed_sample_fmt(format)
        for channel in 0..<channelCount {
            // Planar: one plane per channel, step 1; packed: one plane, step channelCount.
            guard let plane = data[planar ? channel : 0] else { continue }
            let first = planar ? offset : offset * channelCount + channel
            let step = planar ? 1 : channelCount
            switch packed {
            case AV_SAMPLE_FMT_U8:
                scanInteger(plane, as: UInt8.self, channel, first, step, count, center: 128, shift: 0, fullScale: 128)
            case AV_SAMPLE_FMT_S16:
                scanInteger(plane, as: Int16.self, channel, first, step, count, center: 0, shift: 0, fullScale: 32_768)
            case AV_SAMPLE_FMT_S32:
                scanInteger(
                    plane, as: Int32.self, channel, first, step, count, center: 0, shift: 8, fullScale: 2_147_483_648)
            case AV_SAMPLE_FMT_S64:
                scanInteger(
                    plane, as: Int64.self, channel, first, step, count, center: 0, shift: 40,
                    fullScale: 9.223_372_036_854_775_808e18)
            case AV_SAMPLE_FMT_FLT:
                scanFloat(plane, as: Float.self, channel, first, step, count)
            case AV_SAMPLE_FMT_DBL:
                scanFloat(plane, as: Double.self, channel, first, step, count)
            default:
                continue
            }
        }
        samples += Int64(count)
    }

    /// Starts again with no samples, keeping the channels' storage: a meter that measures every
    /// hundredth of a second reuses one value instead of allocating one each time.
    mutating func clear() {
        for index in channels.indices { channels[index] = Channel() }
        samples = 0
    }

    private init(channelCount: Int) { channels = Array(repeating: Channel(), count: channelCount) }
    init() {}

    /// Adds `count` integer samples of one channel, `step` apart from `first`, in integer
    /// arithmetic: floating point costs many times more where the CPU is emulated, and a meter
    /// that runs in every recording must cost next to nothing. `center` is the format's zero
    /// (128 for unsigned 8-bit); samples are shifted right by `shift` bits first, so that the
    /// squares of 32 and 64-bit ones add up without overflow (24 bits are kept, -144 dBFS);
    /// `fullScale` is the magnitude that is 0 dBFS.
    private mutating func scanInteger<T: FixedWidthInteger>(
        _ plane: UnsafeMutablePointer<UInt8>, as type: T.Type, _ channel: Int, _ first: Int, _ step: Int,
        _ count: Int, center: Int64, shift: Int64, fullScale: Double
    ) {
        let samples = UnsafeRawPointer(plane).assumingMemoryBound(to: T.self)
        var peak: Int64 = 0
        var clipped = 0
        var squares = 0.0
        var index = first
        var left = count
        while left > 0 {
            // Squares of up to 2^23 each: 8192 of them stay far below 2^63.
            let run = min(left, 8192)
            var sum: Int64 = 0
            for _ in 0..<run {
                let raw = samples[index]
                let value = (Int64(raw) - center) >> shift
                let magnitude = value < 0 ? -value : value
                if magnitude > peak { peak = magnitude }
                sum &+= value &* value
                if raw == T.min || raw == T.max { clipped += 1 }
                index += step
            }
            squares += Double(sum)
            left -= run
        }
        let unit = Double(Int64(1) << shift) / fullScale
        channels[channel].peak = max(channels[channel].peak, Double(peak) * unit)
        channels[channel].sumOfSquares += squares * unit * unit
        channels[channel].clipped += clipped
    }

    /// Adds `count` floating-point samples of one channel, `step` apart from `first`; full scale
    /// is 1, and a magnitude of 1 or more is clipped.
    private mutating func scanFloat<T: BinaryFloatingPoint>(
        _ plane: UnsafeMutablePointer<UInt8>, as type: T.Type, _ channel: Int, _ first: Int, _ step: Int,
        _ count: Int
    ) {
        let samples = UnsafeRawPointer(plane).assumingMemoryBound(to: T.self)
        var peak = channels[channel].peak
        var sum = 0.0
        var clipped = 0
        var index = first
        for _ in 0..<count {
            let value = Double(samples[index])
            let magnitude = abs(value)
            if magnitude > peak { peak = magnitude }
            if magnitude >= 1 { clipped += 1 }
            sum += value * value
            index += step
        }
        channels[channel].peak = peak
        channels[channel].sumOfSquares += sum
        channels[channel].clipped += clipped
    }

    /// Adds what `other` counted, channel by channel (the same channel count; otherwise `other`
    /// replaces it).
    mutating func merge(_ other: SampleLevels) {
        guard other.samples > 0 else { return }
        // Channels of a measurement with no samples yet are all 0 (`clear`), so they add up too.
        guard channels.count == other.channels.count else {
            self = other
            return
        }
        for index in channels.indices {
            channels[index].peak = max(channels[index].peak, other.channels[index].peak)
            channels[index].sumOfSquares += other.channels[index].sumOfSquares
            channels[index].clipped += other.channels[index].clipped
        }
        samples += other.samples
    }
}
