internal import CFFmpeg

/// Turns one decoded picture into the bytes of a picture file: converts it to the format's pixel
/// format (`PictureConverter`) and encodes it alone (`Encoder`, drained after the one frame).
///
/// Owns its converter, made again when the pictures change size. One thread at a time.
final class StillEncoder {
    let format: StillFormat
    private var converter: PictureConverter?

    init(format: StillFormat) { self.format = format }

    /// The picture file's bytes for `frame`.
    ///
    /// - Throws: `FFmpegError` from the scaler or the encoder (`sws_scale_frame`,
    ///   `avcodec_open2`, `avcodec_send_frame`, `avcodec_receive_packet`).
    func encode(_ frame: Frame) throws(FFmpegError) -> [UInt8] {
        let width = frame.width
        let height = frame.height
        if converter?.width != width || converter?.height != height {
            converter = PictureConverter(width: width, height: height, pixelFormat: PixelFormat(format.pixelFormat))
        }
        let picture = try converter!.convert(frame)
        picture.pts = 0
        var settings = Encoder.VideoSettings(
            width: width, height: height, pixelFormat: PixelFormat(format.pixelFormat), frameRate: Rational(1, 1),
            keyframeInterval: 1)
        if format == .jpeg {
            // A fixed quantizer, as `-q:v 2` gives: rate control means nothing for one picture.
            settings.options = ["flags": "+qscale", "global_quality": "\(2 * 118)"]
            settings.colorRange = .full
            picture.pointer.pointee.quality = 2 * 118
        }
        let encoder = try Encoder(video: format.encoderName, settings, globalHeader: false)
        try encoder.send(picture)
        try encoder.send(nil)
        let packet = try Packet()
        guard try encoder.receive(into: packet) else {
            throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "avcodec_receive_packet(\(encoder.name))")
        }
        return packet.bytes
    }
}
