internal import CFFmpeg

/// Turns the decoded pictures the hub was offered into JPEGs on a thread of its own: scaled
/// down to the preview's size (`PictureConverter`), encoded by FFmpeg's `mjpeg` encoder
/// (`Encoder`), published to the hub. The recording loop never waits on it.
///
/// Owns its converter and encoder, made again when the pictures change size; used only by its
/// thread (after `start`, nothing else touches it), which ends when the hub closes.
final class PreviewEncoder: @unchecked Sendable {
    private let hub: PreviewHub
    private let maxWidth: Int
    private let maxHeight: Int?
    private var converter: PictureConverter?
    private var encoder: Encoder?
    private var count: Int64 = 0

    init(hub: PreviewHub, maxWidth: Int, maxHeight: Int?) {
        self.hub = hub
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// Starts the thread: it encodes until the hub closes.
    func start() {
        DetachedThread.start(name: "preview-jpeg") { [self] in
            while let frame = hub.takeFrame() {
                do {
                    let (jpeg, width, height) = try encode(frame)
                    hub.publish(jpeg: jpeg, width: width, height: height)
                } catch {
                    // A picture that does not convert or encode costs the preview that picture.
                    LibraryLog.shared.verbose("preview picture skipped: \(error)")
                    encoder = nil
                }
            }
        }
    }

    /// The size a `width` x `height` picture is served at: within the limits, its shape kept,
    /// never enlarged, even (4:2:0 needs it), at least 2x2.
    static func size(width: Int, height: Int, maxWidth: Int, maxHeight: Int?) -> (width: Int, height: Int) {
        var scale = min(1, Double(maxWidth) / Double(width))
        if let maxHeight { scale = min(scale, Double(maxHeight) / Double(height)) }
        let even = { (value: Double) in max(2, Int((value / 2).rounded(.down)) * 2) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }

    private func encode(_ frame: Frame) throws(FFmpegError) -> ([UInt8], Int, Int) {
        let (width, height) = Self.size(
            width: frame.width, height: frame.height, maxWidth: maxWidth, maxHeight: maxHeight)
        if converter?.width != width || converter?.height != height || encoder == nil {
            converter = PictureConverter(
                width: width, height: height, pixelFormat: PixelFormat(AV_PIX_FMT_YUVJ420P), keepsFullRange: true)
            var settings = Encoder.VideoSettings(
                width: width, height: height, pixelFormat: PixelFormat(AV_PIX_FMT_YUVJ420P),
                frameRate: Rational(1, 1), keyframeInterval: 1)
            // A fixed quantizer (`-q:v 5`): a preview, smaller than a still's quality 2.
            settings.options = ["flags": "+qscale", "global_quality": "\(5 * 118)"]
            settings.colorRange = .full
            encoder = try Encoder(video: "mjpeg", settings, globalHeader: false)
            count = 0
        }
        let picture = try converter!.convert(frame)
        picture.pts = count
        picture.pointer.pointee.quality = 5 * 118
        picture.clearPictureType()
        count += 1
        try encoder!.send(picture)
        let packet = try Packet()
        guard try encoder!.receive(into: packet) else {
            throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "avcodec_receive_packet(mjpeg)")
        }
        return (packet.bytes, width, height)
    }
}
