internal import CFFmpeg

/// Times a video encoder on this machine: how many frames per second it sustains at a size,
/// pixel format and set of options, encoding pictures as hard as a camera's.
///
/// The pictures come from FFmpeg's own lavfi sources: `testsrc2` (moving shapes and gradients),
/// for a camera with temporal noise (`noise=allf=t`) like a sensor's, which a test pattern alone
/// lacks and which is most of what makes a camera's frames costly to encode. Only the encoder's
/// calls are timed (on CLOCK_MONOTONIC), not making the pictures. Each picture is made, encoded
/// and let go before the next, so the memory taken is one picture and the encoder's own.
///
/// Blocks the calling thread for up to about `limit` seconds, pictures made included, and one
/// picture's making and encoding more (a 8192x8192 one takes seconds).
enum EncoderSpeed {
    /// Encodes pictures with `settings` through `codecName` (`avcodec_send_frame`,
    /// `avcodec_receive_packet`) and drains it.
    ///
    /// - Parameters:
    ///   - frames: the most pictures to encode.
    ///   - seconds: encoding stops at the first picture past this much encoding time, once one
    ///     was encoded: a slow encoder is measured on fewer pictures rather than for longer.
    ///   - noisy: pictures with a sensor's noise (a camera's); false: the test pattern as it is.
    ///   - interrupt: once raised (a stop during start-up), the measurement ends at the next
    ///     picture with `AVERROR_EXIT`.
    ///   - limit: the most time in all, making pictures and the encoder's drain included, in
    ///     seconds (default: 4 x `seconds`). A slow preset holds many pictures back (placebo's
    ///     lookahead, seconds each at 1080p), and draining them all took a minute: past the limit
    ///     the pictures still held are let go, and the speed is what came out in the encoding time
    ///     spent (at least one picture's worth: an upper bound when none did).
    /// - Returns: frames per second encoded, in wall-clock time on the cores there are.
    /// - Throws: `FFmpegError` when the pictures cannot be made (no lavfi) or the encoder does not
    ///   open with these settings.
    static func measure(
        _ codecName: String, _ settings: Encoder.VideoSettings, frames: Int, seconds: Double,
        noisy: Bool = true, interrupt: InterruptFlag? = nil, limit: Double? = nil
    ) throws(FFmpegError) -> Double {
        let started = SessionClock.now()
        let limit = Int64((limit ?? 4 * seconds) * 1e6)
        let graph =
            "testsrc2=size=\(settings.width)x\(settings.height):rate=\(settings.frameRate),"
            + (noisy ? "noise=alls=10:allf=t+u," : "") + "format=\(settings.pixelFormat.name)"
        let input = try InputContainer(url: graph, format: "lavfi")
        guard let stream = input.firstStream(of: .video) else {
            throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "lavfi(\(graph))")
        }
        let decoder = try Decoder(input: input, stream: stream)
        let encoder = try Encoder(video: codecName, settings, globalHeader: false)
        let packet = try Packet()
        let picture = try Frame()
        let encoded = try Packet()
        var spent: Int64 = 0
        var count = 0
        var out = 0
        func timed(_ work: () throws(FFmpegError) -> Void) throws(FFmpegError) {
            let start = SessionClock.now()
            try work()
            spent += SessionClock.now() - start
        }
        while count < frames && (count < 1 || (Double(spent) < seconds * 1e6 && SessionClock.now() - started < limit)) {
            if interrupt?.isRaised == true { throw FFmpegError(CFFmpeg_AVERROR_EXIT, call: "measuring \(codecName)") }
            guard try input.read(into: packet) else { break }
            defer { packet.unref() }
            guard packet.streamIndex == stream else { continue }
            try decoder.send(packet)
            while try decoder.receive(into: picture) {
                defer { picture.unref() }
                picture.pointer.pointee.pts = Int64(count)
                picture.clearPictureType()
                try timed { () throws(FFmpegError) in
                    try encoder.send(picture)
                    while try encoder.receive(into: encoded) {
                        encoded.unref()
                        out += 1
                    }
                }
                count += 1
            }
        }
        guard count > 0 else { throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "lavfi(\(graph))") }
        try timed { () throws(FFmpegError) in try encoder.send(nil) }
        var draining = true
        while draining && SessionClock.now() - started < limit {
            if interrupt?.isRaised == true { throw FFmpegError(CFFmpeg_AVERROR_EXIT, call: "measuring \(codecName)") }
            try timed { () throws(FFmpegError) in draining = try encoder.receive(into: encoded) }
            if draining {
                encoded.unref()
                out += 1
            }
        }
        return Double(max(out, 1)) / (Double(max(spent, 1)) / 1e6)
    }
}
