/// The session's side of its outputs: every output stream the tracks open is added to all of
/// them at one index, and what the tracks wrote is measured for the summary and the read-back.
extension RecordingSession {
    /// True when an output's muxer wants codec headers in extradata.
    var wantsGlobalHeader: Bool { outputs.wantsGlobalHeader }

    /// Adds a stream fed by `encoder` for `device` to every output, at the same index.
    func addOutputStream(encoder: Encoder, device: Device) throws(FFmpegError) -> Int {
        try outputs.addStream(.encoder(encoder, title: streamTitle(device), origin: origin(device)))
    }

    /// Feeds stream `index` of every output from `encoder` from the next frame on: `device`'s
    /// source changed mode, and the series starts its next segment there (`followSource`).
    func replaceOutputStream(_ index: Int, encoder: Encoder, device: Device) throws(FFmpegError) {
        try outputs.replaceStream(index, with: .encoder(encoder, title: streamTitle(device), origin: origin(device)))
    }

    /// Adds a stream of `device`'s packets as they are to every output.
    func addOutputStream(copying input: InputContainer, stream index: Int, timeBase: Rational, device: Device)
        throws(FFmpegError) -> Int
    {
        try outputs.addStream(
            .copy(input, stream: index, timeBase: timeBase, title: streamTitle(device), origin: origin(device)))
    }

    /// The title of `device`'s stream: its name and stable id when the recording has several
    /// devices of its kind (so a player or ffprobe tells the tracks apart); nil with one.
    private func streamTitle(_ device: Device) -> String? {
        let several = device.kind == .video ? plan.videos.count > 1 : plan.audios.count > 1
        guard several else { return nil }
        let stable = device.v4l2?.stablePath ?? device.group
        return stable.map { "\(device.name) (\($0))" } ?? device.name
    }

    /// Where the device stands: its index among its kind, and among all devices (cameras first,
    /// then microphones, each in the order given, as the tracks and a per-device template's
    /// files are numbered).
    private func origin(_ device: Device) -> StreamSource.Origin {
        let cameras = plan.videos.map(\.device)
        if let index = cameras.firstIndex(of: device) { return .init(isVideo: true, indexInKind: index, device: index) }
        let index = plan.audios.map(\.device).firstIndex(of: device) ?? 0
        return .init(isVideo: false, indexInKind: index, device: cameras.count + index)
    }

    /// Bytes written so far: the file's, or for a recording with no file, those sent.
    var bytesWritten: Int64 { outputs.bytesWritten }

    /// Where the last frame or sample ends on the recording's clock, seconds, as a file would
    /// last: for a recording with no single file to read back.
    var encodedDuration: Double { recordedStreams.encodedDuration }

    /// What the tracks wrote, for the outputs to check themselves against at the end.
    var recordedStreams: RecordedStreams {
        RecordedStreams(
            streams: tracks.map { (track) in
                switch track.chain {
                case .video(let path):
                    return .init(
                        isVideo: true, written: track.videoModes.reduce(0) { $0 + $1.written },
                        end: Double(path.endOfLastFrame ?? 0) / 1e6,
                        frameSpan: Self.frameSpan(path))
                case .audio(let path):
                    let start = Double((path.firstTime ?? 0) - path.leadingSilence) / 1e6
                    let end = start + Double(path.samples) / Double(path.encoder.sampleRate)
                    return .init(isVideo: false, written: Int(path.samples), end: end)
                }
            })
    }

    /// A camera's length as its frames give it, from the first frame's slot to the end of the
    /// last one's at the stream's rate (the frames in the file over the rate, once empty slots are
    /// filled): for a raw stream with no index, whose demuxer reads no duration (`.h264`).
    private static func frameSpan(_ path: VideoPath) -> Double? {
        guard let first = path.tally.firstSlot, let last = path.tally.lastSlot, path.rate.doubleValue > 0
        else { return nil }
        return (Double(last - first + 1) / path.rate.doubleValue * 1e6).rounded() / 1e6
    }
}
