/// The network outputs of a recording: made with the session, given every output stream the file
/// gets, connected once the devices are open and before the first frame, fed in `mux`, watched in
/// the loop's housekeeping, finished with the file.
extension RecordingSession {
    /// One `StreamOutput` for each stream of the plan; nothing is connected yet. Their URLs'
    /// secrets are hidden from the library log from now on.
    func makeStreamOutputs() -> [StreamOutput] {
        var settings = StreamOutput.Settings()
        settings.connectTimeout = plan.connectTimeout
        settings.reconnectTimeout = plan.reconnectTimeout
        settings.writeTimeout = max(plan.connectTimeout, 5)
        return plan.outputs.streams.map { stream in
            LibraryLog.shared.hide(stream.target.secrets, in: stream.target.url, as: stream.target.printable)
            return StreamOutput(target: stream.target, formatName: stream.muxer, settings: settings)
        }
    }

    /// True when the file's muxer or a stream's wants codec headers in extradata.
    var wantsGlobalHeader: Bool {
        (output?.wantsGlobalHeader ?? false) || (segments?.wantsGlobalHeader ?? false)
            || streams.contains { StreamOutput.wantsGlobalHeader(formatName: $0.formatName) }
    }

    /// Adds a stream fed by `encoder` to the file and to every network output, at the same index.
    func addOutputStream(encoder: Encoder) throws(FFmpegError) -> Int {
        var index = try output?.addStream(encoder: encoder)
        if let segments { index = try segments.addStream(.encoder(encoder)) }
        var streamIndex = 0
        for stream in streams { streamIndex = try stream.addStream(encoder: encoder) }
        return index ?? streamIndex
    }

    /// Adds a stream of an input's packets as they are to the file and every network output.
    func addOutputStream(copying input: InputContainer, stream index: Int, timeBase: Rational) throws(FFmpegError)
        -> Int
    {
        var fileIndex = try output?.addStream(copying: input, stream: index, timeBase: timeBase)
        if let segments { fileIndex = try segments.addStream(.copy(input, stream: index, timeBase: timeBase)) }
        var streamIndex = 0
        for stream in streams { streamIndex = try stream.addStream(copying: input, stream: index, timeBase: timeBase) }
        return fileIndex ?? streamIndex
    }

    /// Connects every stream and starts its writer, before any file exists.
    ///
    /// - Throws: `CaptureError.unreachable` (69) for the first server that cannot be reached.
    func connectStreams() throws(CaptureError) {
        for stream in streams { try stream.connect(stop: stop.interrupt) }
        for stream in streams { stream.start() }
    }

    /// Bytes written so far: the file's, or for a recording with no file, those sent.
    var bytesWritten: Int64 {
        segments?.bytesWritten ?? output?.bytesWritten ?? streams.reduce(0) { $0 + $1.bytesSent }
    }

    /// Passes the streams' news (connection lost, reconnected, ended) to `onWarning`.
    ///
    /// - Returns: the error that ends a stream-only recording once every stream is lost for good
    ///   (exit 74); nil otherwise: with a file, the recording goes on whatever the streams do.
    func streamEvents() -> CaptureError? {
        for stream in streams {
            for line in stream.takeEvents() { onWarning(line) }
        }
        guard plan.outputs.streamsOnly, !streams.isEmpty else { return nil }
        let lost = streams.compactMap { stream in stream.lostReason.map { (stream.target.printable, $0) } }
        guard lost.count == streams.count, let first = lost.first else { return nil }
        return .io(subject: first.0, reason: "the stream ended: \(first.1)")
    }

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

    /// Ends every stream (queued packets, trailer) and collects their reports.
    func finishStreams() -> [StreamReport] {
        streams.map { $0.finish() }
    }

    /// The summary of a recording with no file: `output` is the first stream's printable URL, the
    /// duration what was encoded, the size the bytes sent over every stream.
    func streamOnlySummary(reports: [StreamReport], failure: CaptureError?, stopReason: StopReason) -> RecordingSummary
    {
        RecordingSummary(
            output: reports.first?.url ?? plan.output, container: plan.container.muxer, video: nil, audio: nil,
            startOffset: nil, duration: encodedDuration,
            fileSize: reports.reduce(0) { $0 + $1.bytes },
            stopReason: failure == nil ? stopReason.text : StopReason.error.text, error: failure.map { "\($0)" })
    }
}
