internal import CFFmpeg

/// A pool of a GPU's picture surfaces that an encoder takes its frames in (VA-API), and the
/// upload of each picture from memory into one (`av_hwframe_transfer_data`).
///
/// Owns its device context (`av_hwdevice_ctx_create` on a DRM render node) and frames context
/// (`av_hwframe_ctx_alloc`, `av_hwframe_ctx_init`), both reference-counted buffers unreferenced
/// in deinit; an encoder given `framesReference` holds a reference of its own. Used by the thread
/// that encodes.
final class HardwareFrames {
    private var device: UnsafeMutablePointer<AVBufferRef>?
    private var frames: UnsafeMutablePointer<AVBufferRef>?
    private let upload: Frame

    /// Opens `devicePath` (`/dev/dri/renderD128`) through libva and makes a pool of `width` x
    /// `height` surfaces holding pictures of `softwareFormat` (NV12).
    ///
    /// - Throws: `FFmpegError` from `av_hwdevice_ctx_create` (no VA-API driver for the GPU, no
    ///   access to the node) or `av_hwframe_ctx_init` (a size or format the GPU does not take).
    init(vaapi devicePath: String, width: Int, height: Int, softwareFormat: PixelFormat) throws(FFmpegError) {
        upload = try Frame()
        try check(
            av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_VAAPI, devicePath, nil, 0),
            "av_hwdevice_ctx_create(vaapi, \(devicePath))")
        guard let made = av_hwframe_ctx_alloc(device) else {
            throw FFmpegError(CFFmpeg_AVERROR(ENOMEM), call: "av_hwframe_ctx_alloc")
        }
        frames = made
        let context = UnsafeMutableRawPointer(made.pointee.data).assumingMemoryBound(to: AVHWFramesContext.self)
        context.pointee.format = AV_PIX_FMT_VAAPI
        context.pointee.sw_format = softwareFormat.av
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.initial_pool_size = 20
        try check(av_hwframe_ctx_init(made), "av_hwframe_ctx_init(vaapi \(width)x\(height))")
    }

    deinit {
        av_buffer_unref(&frames)
        av_buffer_unref(&device)
    }

    /// The pixel format an encoder fed from this pool is opened with.
    var pixelFormat: AVPixelFormat { AV_PIX_FMT_VAAPI }

    /// A new reference to the pool, for `AVCodecContext.hw_frames_ctx`; nil when out of memory.
    func framesReference() -> UnsafeMutablePointer<AVBufferRef>? { av_buffer_ref(frames) }

    /// `picture` uploaded into a surface of the pool, with its timing and picture type; valid until
    /// the next call.
    ///
    /// - Throws: `FFmpegError` from `av_hwframe_get_buffer` or `av_hwframe_transfer_data`.
    func uploaded(_ picture: Frame) throws(FFmpegError) -> Frame {
        upload.unref()
        try check(av_hwframe_get_buffer(frames, upload.pointer, 0), "av_hwframe_get_buffer")
        try check(av_hwframe_transfer_data(upload.pointer, picture.pointer, 0), "av_hwframe_transfer_data")
        try check(av_frame_copy_props(upload.pointer, picture.pointer), "av_frame_copy_props")
        return upload
    }
}
