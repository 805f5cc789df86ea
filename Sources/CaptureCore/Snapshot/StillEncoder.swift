internal import CFFmpeg

/// Turns one decoded picture into the bytes of a picture file: converts it to the format's pixel
/// format (`Scaler`) and encodes it alone (`Encoder`, drained after the one frame).
///
/// Owns its scaler, made again when the pictures change size or format. One thread at a time.
final class StillEncoder {
    let format: StillFormat
    private var scaler: Scaler?

    init(format: StillFormat) { self.format = format }

    /// The picture file's bytes for `frame`.
    ///
    /// - Throws: `FFmpegError` from the scaler or the encoder (`sws_scale_frame`,
    ///   `avcodec_open2`, `avcodec_send_frame`, `avcodec_receive_packet`).
    func encode(_ frame: Frame) throws(FFmpegError) -> [UInt8] {
        let width = frame.width
        let height = frame.height
        if scaler == nil || scaler?.sourceWidth != width || scaler?.sourceHeight != height
            || scaler?.sourceFormat != frame.pixelFormat || scaler?.sourceFullRange != frame.isFullRange
        {
            scaler = try Scaler(
                sourceWidth: width, sourceHeight: height, sourceFormat: frame.pixelFormat,
                sourceFullRange: frame.isFullRange, width: width, height: height, pixelFormat: format.pixelFormat)
        }
        let picture = try scaler!.scale(frame)
        picture.pts = 0
        var settings = Encoder.VideoSettings(
            width: width, height: height, pixelFormat: format.pixelFormat, frameRate: Rational(1, 1),
            keyframeInterval: 1)
        if format == .jpeg {
            // A fixed quantizer, as `-q:v 2` gives: rate control means nothing for one picture.
            settings.options = ["flags": "+qscale", "global_quality": "\(2 * 118)"]
            settings.colorRange = AVCOL_RANGE_JPEG
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

extension Packet {
    /// A copy of the payload.
    var bytes: [UInt8] {
        guard size > 0, let data = pointer.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
