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

    init(encoder: Encoder, stream: Int, kind: String) {
        self.encoder = encoder
        self.stream = stream
        self.kind = kind
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
