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
                scan(plane, as: UInt8.self, channel, first, step, count) {
                    (Double($0) - 128) / 128
                } clips: {
                    $0 == 0 || $0 == .max
                }
            case AV_SAMPLE_FMT_S16:
                scan(plane, as: Int16.self, channel, first, step, count) {
                    Double($0) / 32_768
                } clips: {
                    $0 == .min || $0 == .max
                }
            case AV_SAMPLE_FMT_S32:
                scan(plane, as: Int32.self, channel, first, step, count) {
                    Double($0) / 2_147_483_648
                } clips: {
                    $0 == .min || $0 == .max
                }
            case AV_SAMPLE_FMT_S64:
                scan(plane, as: Int64.self, channel, first, step, count) {
                    Double($0) / 9.223_372_036_854_775_808e18
                } clips: {
                    $0 == .min || $0 == .max
                }
            case AV_SAMPLE_FMT_FLT:
                scan(plane, as: Float.self, channel, first, step, count) {
                    Double($0)
                } clips: {
                    abs($0) >= 1
                }
            case AV_SAMPLE_FMT_DBL:
                scan(plane, as: Double.self, channel, first, step, count) {
                    $0
                } clips: {
                    abs($0) >= 1
                }
            default:
                continue
            }
        }
        samples += Int64(count)
    }

    private init(channelCount: Int) { channels = Array(repeating: Channel(), count: channelCount) }
    init() {}

    /// Adds `count` samples of one channel, `step` apart from `first`, read as `T`.
    private mutating func scan<T>(
        _ plane: UnsafeMutablePointer<UInt8>, as type: T.Type, _ channel: Int, _ first: Int, _ step: Int,
        _ count: Int, value: (T) -> Double, clips: (T) -> Bool
    ) {
        let samples = UnsafeRawPointer(plane).assumingMemoryBound(to: T.self)
        var peak = channels[channel].peak
        var sum = 0.0
        var clipped = 0
        var index = first
        for _ in 0..<count {
            let sample = samples[index]
            let x = value(sample)
            sum += x * x
            peak = max(peak, abs(x))
            if clips(sample) { clipped += 1 }
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
        guard channels.count == other.channels.count, samples > 0 else {
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
