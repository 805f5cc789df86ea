/// The session's side of its outputs: every output stream the tracks open is added to all of
/// them at one index, and what the tracks wrote is measured for the summary and the read-back.
extension RecordingSession {
    /// True when an output's muxer wants codec headers in extradata.
    var wantsGlobalHeader: Bool { outputs.wantsGlobalHeader }

    /// Adds a stream fed by `encoder` to every output, at the same index.
    func addOutputStream(encoder: Encoder) throws(FFmpegError) -> Int {
        try outputs.addStream(.encoder(encoder))
    }

    /// Adds a stream of an input's packets as they are to every output.
    func addOutputStream(copying input: InputContainer, stream index: Int, timeBase: Rational) throws(FFmpegError)
        -> Int
    {
        try outputs.addStream(.copy(input, stream: index, timeBase: timeBase))
    }

    /// Bytes written so far: the file's, or for a recording with no file, those sent.
    var bytesWritten: Int64 { outputs.bytesWritten }

    /// Where the last frame or sample ends on the recording's clock, seconds, as a file would
    /// last: for a recording with no single file to read back.
    var encodedDuration: Double {
        var duration = 0.0
        if let video, let end = video.path.endOfLastFrame {
            duration = Double(end) / 1e6
        }
        if let audio {
            let start = Double((audio.path.firstTime ?? 0) - audio.path.leadingSilence) / 1e6
            duration = max(duration, start + Double(audio.path.samples) / Double(audio.path.encoder.sampleRate))
        }
        return (duration * 1000).rounded() / 1000
    }

    /// What the tracks wrote, for the outputs to check themselves against at the end.
    var recordedStreams: RecordedStreams {
        let frames = video?.path.written ?? 0
        let samples = audio?.path.samples ?? 0
        return RecordedStreams(
            count: (video == nil ? 0 : 1) + (audio == nil ? 0 : 1),
            withData: (frames > 0 ? 1 : 0) + (samples > 0 ? 1 : 0), onePicture: frames == 1 && samples == 0,
            encodedDuration: encodedDuration, frameSpan: frameSpan)
    }

    /// The recording's length as its frames give it, from the first frame's slot to the end of the
    /// last one's at the stream's rate (the frames in the file over the rate, once empty slots are
    /// filled): for a raw stream with no index, whose demuxer reads no duration (`.h264`).
    private var frameSpan: Double? {
        guard let tally = video?.path.tally, let first = tally.firstSlot, let last = tally.lastSlot,
            let rate = video?.path.rate, rate.doubleValue > 0
        else { return nil }
        return (Double(last - first + 1) / rate.doubleValue * 1e6).rounded() / 1e6
    }
}
