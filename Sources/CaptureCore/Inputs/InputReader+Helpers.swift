/// The reader's pure helpers: what a given-up reconnect says, how a microphone's samples are
/// gathered into blocks.
extension InputReader {
    /// The error of a device lost for longer than the reconnect timeout.
    static func gaveUp(device: String, reason: String, timeout: Double) -> CaptureError {
        .io(
            subject: device,
            reason: "the device was lost (\(reason)) and did not come back within \(DurationValue.text(timeout)) s; "
                + "the file is finalized up to there")
    }

    /// A coalescer for a PCM audio stream; nil for anything else.
    static func coalescer(for input: InputContainer, stream: Int) -> PCMCoalescer? {
        guard let layout = input.pcmLayout(of: stream) else { return nil }
        return PCMCoalescer(frameBytes: layout.frameBytes, sampleRate: layout.sampleRate)
    }
}
