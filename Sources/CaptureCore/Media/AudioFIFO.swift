internal import CFFmpeg

/// A growing queue of audio samples (`AVAudioFifo`), to cut the resampler's output into the exact
/// frame sizes that AAC (1024) and Opus (960) require.
///
/// Owns its FIFO (`av_audio_fifo_alloc`, freed with `av_audio_fifo_free` in deinit).
final class AudioFIFO {
    private let fifo: OpaquePointer
    let format: AVSampleFormat
    let layout: AVChannelLayout
    let sampleRate: Int

    init(format: AVSampleFormat, layout: AVChannelLayout, sampleRate: Int) throws(FFmpegError) {
        guard let fifo = av_audio_fifo_alloc(format, layout.nb_channels, 1024) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_audio_fifo_alloc")
        }
        self.fifo = fifo
        self.format = format
        self.layout = layout
        self.sampleRate = sampleRate
    }

    /// A FIFO of what `encoder` takes: its sample format, channel layout and rate.
    convenience init(for encoder: Encoder) throws(FFmpegError) {
        try self.init(format: encoder.sampleFormat, layout: encoder.channelLayout, sampleRate: encoder.sampleRate)
    }

    deinit { av_audio_fifo_free(fifo) }

    /// Samples per channel waiting.
    var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Appends the first `samples` samples of `frame` (`av_audio_fifo_write`).
    func write(_ frame: Frame, samples: Int) throws(FFmpegError) {
        guard samples > 0 else { return }
        let planes = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        try check(av_audio_fifo_write(fifo, planes, Int32(samples)), "av_audio_fifo_write")
    }

    /// Discards up to `samples` samples from the front (`av_audio_fifo_drain`).
    func drain(samples: Int) throws(FFmpegError) {
        let n = min(samples, count)
        guard n > 0 else { return }
        try check(av_audio_fifo_drain(fifo, Int32(n)), "av_audio_fifo_drain")
    }

    /// Takes up to `samples` samples into a new frame (`av_audio_fifo_read`); nil when empty.
    func read(samples: Int) throws(FFmpegError) -> Frame? {
        let n = min(samples, count)
        guard n > 0 else { return nil }
        let frame = try Frame(samples: n, format: format, layout: layout, sampleRate: sampleRate)
        let planes = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        try check(av_audio_fifo_read(fifo, planes, Int32(n)), "av_audio_fifo_read")
        return frame
    }
}
