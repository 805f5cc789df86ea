/// Every output of a recording behind one face: a stream is added to all at the same index, a
/// packet is given to all, all are flushed, asked for news, and finished once.
///
/// The outputs that take a reference to a packet (streams) get it before the one that takes its
/// payload (the file or the series). The recording lives in its carriers: one file or series, or
/// with a per-device name one for each device; without any (a recording that only streams) it
/// ends once every output is lost for good.
///
/// Not thread-safe: the recording loop's thread only.
final class OutputTee {
    let outputs: [any RecordingOutput]

    init(_ outputs: [any RecordingOutput]) {
        self.outputs = outputs.filter { !$0.carriesRecording } + outputs.filter(\.carriesRecording)
    }

    /// The outputs the recording lives in; none when it only streams.
    var carriers: [any RecordingOutput] { outputs.filter(\.carriesRecording) }
    var wantsGlobalHeader: Bool { outputs.contains { $0.wantsGlobalHeader } }
    var storesNoTimestamps: Bool { outputs.contains { $0.storesNoTimestamps } }
    /// True once a packet reached a carrier, or with none, any output.
    var started: Bool { (carriers.isEmpty ? outputs : carriers).contains { $0.started } }
    /// The carriers' bytes, or with none, those sent over every output.
    var bytesWritten: Int64 { (carriers.isEmpty ? outputs : carriers).reduce(0) { $0 + $1.bytesWritten } }

    /// Adds a stream to every output.
    ///
    /// - Returns: its index, the same in all.
    /// - Throws: `FFmpegError` from the first output that cannot add it.
    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        var index = 0
        for output in outputs { index = try output.addStream(source) }
        return index
    }

    /// Feeds stream `index` of every output from `source` from its next packet on
    /// (`RecordingOutput.replaceStream`).
    func replaceStream(_ index: Int, with source: StreamSource) throws(FFmpegError) {
        for output in outputs { try output.replaceStream(index, with: source) }
    }

    /// Connects every output, then starts them.
    ///
    /// - Throws: `.unreachable` (69) for the first that cannot be reached.
    func connect(stop: InterruptFlag) throws(CaptureError) {
        for output in outputs { try output.connect(stop: stop) }
        for output in outputs { output.start() }
    }

    /// - Throws: what a carrier throws (`RecordingOutput.write`).
    func write(_ packet: Packet, stream: Int) throws(CaptureError) {
        for output in outputs { try output.write(packet, stream: stream) }
    }

    /// Passes a trigger to every output.
    ///
    /// - Throws: what an output throws (`RecordingOutput.trigger`).
    func trigger(at time: Int64, reason: String) throws(CaptureError) {
        for output in outputs { try output.trigger(at: time, reason: reason) }
    }

    func flush() throws(CaptureError) {
        for output in outputs { try output.flush() }
    }

    /// What every output has to tell since the last call.
    func takeNews() -> (events: [RecordingEvent], warnings: [String]) {
        var news: (events: [RecordingEvent], warnings: [String]) = ([], [])
        for output in outputs {
            let taken = output.takeNews()
            news.events += taken.events
            news.warnings += taken.warnings
        }
        return news
    }

    /// For a recording with no carrier: the error that ends it once every output is lost for
    /// good (exit 74); nil otherwise. With a carrier the recording goes on whatever the rest do.
    var allLost: CaptureError? {
        guard carriers.isEmpty, !outputs.isEmpty else { return nil }
        let lost = outputs.compactMap { output in output.lostReason.map { (output.name, $0) } }
        guard lost.count == outputs.count, let first = lost.first else { return nil }
        return .io(subject: first.0, reason: "the stream ended: \(first.1)")
    }

    func recordingEnds(at time: Int64) {
        for output in outputs { output.recordingEnds(at: time) }
    }

    /// True when any output wants a keyframe at `time`; every one is asked.
    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool {
        var wanted = false
        for output in outputs {
            if try output.wantsKeyframe(at: time, stream: stream) { wanted = true }
        }
        return wanted
    }

    func videoKeyframes(anywhere: Bool) {
        for output in outputs { output.videoKeyframes(anywhere: anywhere) }
    }

    /// Finishes every output, streams first.
    ///
    /// - Returns: the carriers' reports (none when it only streams), and every report in
    ///   `outputs`' order.
    func finish(_ recorded: RecordedStreams) -> (carriers: [OutputReport], all: [OutputReport]) {
        let all = outputs.map { $0.finish(recorded) }
        return (outputs.indices.filter { outputs[$0].carriesRecording }.map { all[$0] }, all)
    }

    func close(timeout: Double) {
        for output in outputs { output.close(timeout: timeout) }
    }
}
