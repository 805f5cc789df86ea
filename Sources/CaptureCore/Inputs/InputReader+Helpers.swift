/// The reader's pure helpers: what a given-up reconnect and a source not followed say, how a
/// microphone's samples are gathered into blocks.
extension InputReader {
    /// The error of a device lost for longer than the reconnect timeout.
    static func gaveUp(device: String, reason: String, timeout: Double) -> CaptureError {
        .io(
            subject: device,
            reason: "the device was lost (\(reason)) and did not come back within \(DurationValue.text(timeout)) s; "
                + "the file is finalized up to there")
    }

    /// The error of a camera whose source changed mode and could not be followed (`SourceFollower`).
    static func notFollowed(_ device: String, _ from: String, _ to: String, _ why: CaptureError) -> CaptureError {
        .io(
            subject: device,
            reason: "its source changed from \(from) to \(to), and it could not be opened at the new mode (\(why)); "
                + "the segments are finalized up to there")
    }

    /// A coalescer for a PCM audio stream; nil for anything else.
    static func coalescer(for input: InputContainer, stream: Int) -> PCMCoalescer? {
        guard let layout = input.pcmLayout(of: stream) else { return nil }
        return PCMCoalescer(frameBytes: layout.frameBytes, sampleRate: layout.sampleRate)
    }
}
