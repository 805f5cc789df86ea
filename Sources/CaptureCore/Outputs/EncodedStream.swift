/// One stream of the output fed by an encoder: frames in, packets out to the muxer. The one
/// encode-and-mux path audio and video share, as FFmpeg's doc/examples/mux.c has its
/// `OutputStream` and `write_frame`.
///
/// Used only by the recording loop's thread.
final class EncodedStream {
    /// Hands a packet to the muxer for the output stream of that index.
    typealias Mux = (Packet, Int) throws(CaptureError) -> Void

    let encoder: Encoder
    /// The output stream's index.
    let stream: Int
    /// `video` or `audio`, for messages.
    private let kind: String
    /// The duration (encoder ticks) given to a packet the encoder leaves without one; nil: left so.
    private let packetDuration: Int64?

    /// - Parameter packetDuration: for video, 1: a frame lasts one tick of the encoder's time base
    ///   (1/frame rate). FFmpeg 5.1's rawvideo encoder gives packets no duration, and an MP4 or
    ///   MOV index then gives the last frame none, so its edit list ends where that frame starts
    ///   and players drop it.
    init(encoder: Encoder, stream: Int, kind: String, packetDuration: Int64? = nil) {
        self.encoder = encoder
        self.stream = stream
        self.kind = kind
        self.packetDuration = packetDuration
    }

    /// Encodes `frame` (nil: the end, drain everything) and writes every packet the encoder gives
    /// back (`avcodec_send_frame`, `avcodec_receive_packet`).
    ///
    /// - Throws: `.failed` when the encoder refuses; the muxer's own errors from `mux`.
    func encode(_ frame: Frame?, mux: Mux) throws(CaptureError) {
        let what = frame == nil ? "flushing the \(kind) encoder" : "encoding \(kind)"
        try media(what) { () throws(FFmpegError) in try encoder.send(frame) }
        while true {
            let packet: Packet
            do {
                packet = try Packet()
                guard try encoder.receive(into: packet) else { return }
            } catch {
                throw .failed("encoding \(kind) failed: \(error)")
            }
            if let packetDuration, packet.duration <= 0 { packet.duration = packetDuration }
            try mux(packet, stream)
        }
    }
}

/// Runs FFmpeg work, turning its error into the user's error for `what`.
func media<T>(_ what: String, _ body: () throws(FFmpegError) -> T) throws(CaptureError) -> T {
    do {
        return try body()
    } catch {
        throw .failed("\(what) failed: \(error)")
    }
}
