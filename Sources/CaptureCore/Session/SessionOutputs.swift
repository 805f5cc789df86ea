/// The session's side of its outputs: every output stream the tracks open is added to all of
/// them at one index, and what the tracks wrote is measured for the summary and the read-back.
extension RecordingSession {
    /// True when an output's muxer wants codec headers in extradata.
    var wantsGlobalHeader: Bool { outputs.wantsGlobalHeader }

    /// Adds a stream fed by `encoder` for `device` to every output, at the same index.
    func addOutputStream(encoder: Encoder, device: Device) throws(FFmpegError) -> Int {
        try outputs.addStream(.encoder(encoder, title: streamTitle(device), first: isFirst(device)))
    }

    /// Adds a stream of `device`'s packets as they are to every output.
    func addOutputStream(copying input: InputContainer, stream index: Int, timeBase: Rational, device: Device)
        throws(FFmpegError) -> Int
    {
        try outputs.addStream(
            .copy(input, stream: index, timeBase: timeBase, title: streamTitle(device), first: isFirst(device)))
    }

    /// The title of `device`'s stream: its name and stable id when the recording has several
    /// devices of its kind (so a player or ffprobe tells the tracks apart); nil with one.
    private func streamTitle(_ device: Device) -> String? {
        let several = device.kind == .video ? plan.videos.count > 1 : plan.audios.count > 1
        guard several else { return nil }
        let stable = device.v4l2?.stablePath ?? device.group
        return stable.map { "\(device.name) (\($0))" } ?? device.name
    }

    /// True for the first camera and the first microphone.
    private func isFirst(_ device: Device) -> Bool {
        device == (device.kind == .video ? plan.video?.device : plan.audio?.device)
    }

    /// Bytes written so far: the file's, or for a recording with no file, those sent.
    var bytesWritten: Int64 { outputs.bytesWritten }

    /// Where the last frame or sample ends on the recording's clock, seconds, as a file would
    /// last: for a recording with no single file to read back.
    var encodedDuration: Double {
        let ends = tracks.map { (track) -> Double in
            switch track.chain {
            case .video(let path): return Double(path.endOfLastFrame ?? 0) / 1e6
            case .audio(let path):
                let start = Double((path.firstTime ?? 0) - path.leadingSilence) / 1e6
                return start + Double(path.samples) / Double(path.encoder.sampleRate)
            }
        }
        return ((ends.max() ?? 0) * 1000).rounded() / 1000
    }

    /// What the tracks wrote, for the outputs to check themselves against at the end.
    var recordedStreams: RecordedStreams {
        let frames = tracks.compactMap(\.video).map(\.written)
        let samples = tracks.compactMap(\.audio).map(\.samples)
        return RecordedStreams(
            count: tracks.count, withData: frames.filter { $0 > 0 }.count + samples.filter { $0 > 0 }.count,
            onePicture: frames.reduce(0, +) == 1 && samples.allSatisfy { $0 == 0 },
            encodedDuration: encodedDuration, frameSpan: frameSpan)
    }

    /// The recording's length as its frames give it, from the first frame's slot to the end of the
    /// last one's at the stream's rate (the frames in the file over the rate, once empty slots are
    /// filled): for a raw stream with no index, whose demuxer reads no duration (`.h264`), which
    /// holds one camera.
    private var frameSpan: Double? {
        guard let path = tracks.cameras.first?.video, let first = path.tally.firstSlot,
            let last = path.tally.lastSlot, path.rate.doubleValue > 0
        else { return nil }
        return (Double(last - first + 1) / path.rate.doubleValue * 1e6).rounded() / 1e6
    }
}
