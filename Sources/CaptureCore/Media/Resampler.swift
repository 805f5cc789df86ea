internal import CFFmpeg

/// Converts audio between sample formats, rates and channel counts, and follows the source's
/// timestamps (`SwrContext` from libswresample).
///
/// Owns its context (`swr_alloc_set_opts2`, freed with `swr_free` in deinit). Set up as
/// FFmpeg's `aresample=async=...` is: small clock drift is absorbed by stretching or squeezing
/// the audio slightly (`swr_set_compensation`, driven by `swr_next_pts`); a gap larger than
/// `hardCompensation` seconds, as an ALSA overrun leaves, is filled with silence.
final class Resampler {
    private var context: OpaquePointer?
    let outputFormat: AVSampleFormat
    let outputRate: Int
    let outputLayout: AVChannelLayout
    let inputRate: Int

    /// A resampler from what `frame` holds to what `encoder` takes.
    ///
    /// A device's channels carry no positions (ALSA numbers them, and a count FFmpeg has no name
    /// for comes unspecified): the same count is the same channels, in order, under the layout the
    /// encoder writes, never a remix between two guesses.
    convenience init(from frame: Frame, to encoder: Encoder) throws(FFmpegError) {
        let input = frame.pointer.pointee.ch_layout
        let sameCount = input.nb_channels == encoder.channelLayout.nb_channels
        try self.init(
            inputFormat: frame.sampleFormat, inputRate: frame.sampleRate,
            inputLayout: sameCount ? encoder.channelLayout : input,
            outputFormat: encoder.sampleFormat, outputRate: encoder.sampleRate, outputLayout: encoder.channelLayout)
    }

    /// - Parameters:
    ///   - maxStretch: the most samples per second soft compensation may add or remove.
    ///   - hardCompensation: a gap, in seconds, beyond which silence is inserted instead.
    init(
        inputFormat: AVSampleFormat, inputRate: Int, inputLayout: AVChannelLayout,
        outputFormat: AVSampleFormat, outputRate: Int, outputLayout: AVChannelLayout,
        maxStretch: Int = 1000, hardCompensation: Double = 0.1
    ) throws(FFmpegError) {
        var context: OpaquePointer?
        var inLayout = inputLayout
        var outLayout = outputLayout
        try check(
            swr_alloc_set_opts2(
                &context, &outLayout, outputFormat, Int32(outputRate), &inLayout, inputFormat, Int32(inputRate), 0, nil),
            "swr_alloc_set_opts2")
        self.context = context
        self.outputFormat = outputFormat
        self.outputRate = outputRate
        self.outputLayout = outputLayout
        self.inputRate = inputRate
        av_opt_set(UnsafeMutableRawPointer(context), "async", "\(maxStretch)", 0)
        av_opt_set(UnsafeMutableRawPointer(context), "min_hard_comp", "\(hardCompensation)", 0)
        try check(swr_init(context), "swr_init")
    }

    deinit { swr_free(&context) }

    /// Tells the resampler when the next input sample was captured, so it can follow the source's
    /// clock (`swr_next_pts`).
    ///
    /// - Parameter microseconds: the capture time of the next input sample on the session clock.
    /// - Returns: the output sample index (in output samples since 0) the next output sample has.
    func nextOutputSample(capturedAt microseconds: Int64) -> Int64 {
        // swr counts in 1/(inputRate * outputRate) s.
        let scale = Int64(inputRate) * Int64(outputRate)
        let pts = av_rescale(microseconds, scale, 1_000_000)
        let next = swr_next_pts(context, pts)
        return av_rescale_rnd(next, 1, Int64(inputRate), AV_ROUND_NEAR_INF)
    }

    /// Converts `frame` (nil: drains what the resampler holds back) into a new frame.
    ///
    /// - Returns: the converted samples; nil when there is none yet.
    func convert(_ frame: Frame?) throws(FFmpegError) -> Frame? {
        let inputSamples = frame?.sampleCount ?? 0
        let capacity = Int(swr_get_out_samples(context, Int32(inputSamples))) + 64
        guard capacity > 0 else { return nil }
        let output = try Frame(samples: capacity, format: outputFormat, layout: outputLayout, sampleRate: outputRate)
        let outPlanes = output.pointer.pointee.extended_data
        let inPlanes = frame.map {
            UnsafeMutableRawPointer($0.pointer.pointee.extended_data!).assumingMemoryBound(
                to: UnsafePointer<UInt8>?.self)
        }
        let converted = try check(
            swr_convert(context, outPlanes, Int32(capacity), inPlanes, Int32(inputSamples)), "swr_convert")
        guard converted > 0 else { return nil }
        output.pointer.pointee.nb_samples = converted
        return output
    }
}
