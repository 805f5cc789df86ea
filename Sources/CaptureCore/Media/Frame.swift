internal import CFFmpeg

/// One decoded picture or block of audio samples (`AVFrame`).
///
/// Owns its `AVFrame` (`av_frame_alloc`, freed with `av_frame_free` in deinit); the sample or pixel
/// buffers it references are reference-counted by FFmpeg.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// An empty frame. Wraps `av_frame_alloc`.
    init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_frame_alloc")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// A picture of `width` x `height` pixels in `pixelFormat`, with its buffers allocated
    /// (`av_frame_get_buffer`).
    convenience init(width: Int, height: Int, pixelFormat: AVPixelFormat) throws(FFmpegError) {
        try self.init()
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = pixelFormat.rawValue
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// A block of `samples` audio samples per channel, with its buffers allocated
    /// (`av_frame_get_buffer`).
    convenience init(samples: Int, format: AVSampleFormat, layout: AVChannelLayout, sampleRate: Int) throws(FFmpegError)
    {
        try self.init()
        pointer.pointee.nb_samples = Int32(samples)
        pointer.pointee.format = format.rawValue
        pointer.pointee.sample_rate = Int32(sampleRate)
        var source = layout
        try check(av_channel_layout_copy(&pointer.pointee.ch_layout, &source), "av_channel_layout_copy")
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// Sets every audio sample to silence (`av_samples_set_silence`).
    func silence() {
        let frame = pointer.pointee
        av_samples_set_silence(
            frame.extended_data, 0, frame.nb_samples, frame.ch_layout.nb_channels,
            AVSampleFormat(rawValue: frame.format))
    }

    /// Presentation time in the time base of the codec that made or will take the frame.
    var pts: Int64? {
        get { pointer.pointee.pts == CFFmpeg_AV_NOPTS_VALUE ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? CFFmpeg_AV_NOPTS_VALUE }
    }

    var width: Int { Int(pointer.pointee.width) }
    var height: Int { Int(pointer.pointee.height) }
    /// `AVFrame.format` as a pixel format (video frames).
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }
    /// `AVFrame.format` as a sample format (audio frames).
    var sampleFormat: AVSampleFormat { AVSampleFormat(rawValue: pointer.pointee.format) }
    /// Samples per channel (audio frames).
    var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    /// Samples per second (audio frames).
    var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    /// Channels (audio frames).
    var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    /// The pixel format as a value (video frames).
    var pixelFormatValue: PixelFormat { PixelFormat(pixelFormat) }

    /// Leaves the picture type to the encoder (`AVFrame.pict_type` = `AV_PICTURE_TYPE_NONE`).
    ///
    /// Decoders mark every raw picture as an I frame, and libx264 takes a frame's type as an
    /// order: passed on, every frame would become a keyframe (twice the size).
    func clearPictureType() { pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE }
    /// Orders the encoder to make this picture a keyframe (`AV_PICTURE_TYPE_I`; libx264 makes it
    /// an IDR frame, as its GOPs are closed), where a new segment starts.
    func forceKeyframe() { pointer.pointee.pict_type = AV_PICTURE_TYPE_I }
    /// True when the picture's YUV values span the full range (`AVFrame.color_range` is JPEG),
    /// as a JPEG decoder's pictures do.
    var isFullRange: Bool { pointer.pointee.color_range == AVCOL_RANGE_JPEG }

    /// True when the decoder flagged the picture as damaged (`AV_FRAME_FLAG_CORRUPT`) or says it
    /// was built from errors (`decode_error_flags`: an invalid bitstream, a missing reference,
    /// slices that failed, or areas it concealed by guessing them from their neighbours).
    var isCorrupt: Bool {
        pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || pointer.pointee.decode_error_flags != 0
    }

    /// A picture of its own with this one's pixels and properties (`av_frame_get_buffer`,
    /// `av_frame_copy`, `av_frame_copy_props`): it holds no buffer of the decoder's or a device's.
    func copied() throws(FFmpegError) -> Frame {
        let copy = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        try check(av_frame_copy(copy.pointer, pointer), "av_frame_copy")
        try check(av_frame_copy_props(copy.pointer, pointer), "av_frame_copy_props")
        return copy
    }

    /// Drops the buffers and resets the fields, keeping the allocation (`av_frame_unref`).
    func unref() { av_frame_unref(pointer) }
}

extension AVPixelFormat {
    /// True for FFmpeg's deprecated `yuvj*` formats, which say full range in the format itself.
    var isDeprecatedFullRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .contains(self)
    }
}
