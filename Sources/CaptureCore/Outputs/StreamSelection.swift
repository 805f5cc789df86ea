/// An output fed some of the recording's streams only: a network stream of a recording with
/// several cameras or microphones carries one of each (FLV, RTSP and SRT servers take one video
/// and one audio stream); a file of a per-device template, its device's. The streams it takes are numbered from 0 in it; packets of the
/// others pass it by. Everything else is the wrapped output's.
///
/// Not thread-safe: the recording loop's thread only, as the output it wraps.
final class StreamSelection: RecordingOutput {
    let inner: any RecordingOutput
    /// Which streams it takes.
    private let takes: (StreamSource) -> Bool
    /// The recording's stream index -> the wrapped output's, for the streams it takes.
    private var indices: [Int: Int] = [:]
    /// Streams of the recording added so far: the index of the next.
    private var added = 0

    init(_ inner: any RecordingOutput, takes: @escaping (StreamSource) -> Bool) {
        self.inner = inner
        self.takes = takes
    }

    /// One camera's and one microphone's streams: indices among the cameras and the
    /// microphones.
    static func carrying(camera: Int, microphone: Int, _ inner: any RecordingOutput) -> StreamSelection {
        StreamSelection(inner) { $0.origin.indexInKind == ($0.origin.isVideo ? camera : microphone) }
    }

    /// The streams of the recording's device `device` (its index among the tracks).
    static func device(_ device: Int, _ inner: any RecordingOutput) -> StreamSelection {
        StreamSelection(inner) { $0.origin.device == device }
    }

    var name: String { inner.name }
    var carriesRecording: Bool { inner.carriesRecording }
    var wantsGlobalHeader: Bool { inner.wantsGlobalHeader }
    var storesNoTimestamps: Bool { inner.storesNoTimestamps }
    var started: Bool { inner.started }
    var bytesWritten: Int64 { inner.bytesWritten }
    var lostReason: String? { inner.lostReason }

    /// - Returns: the stream's index in the recording, as every other output numbers it.
    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        let index = added
        added += 1
        if takes(source) { indices[index] = try inner.addStream(source) }
        return index
    }

    func write(_ packet: Packet, stream: Int) throws(CaptureError) {
        guard let own = indices[stream] else { return }
        try inner.write(packet, stream: own)
    }

    func connect(stop: InterruptFlag) throws(CaptureError) { try inner.connect(stop: stop) }
    func start() { inner.start() }
    func flush() throws(CaptureError) { try inner.flush() }
    func takeNews() -> (events: [RecordingEvent], warnings: [String]) { inner.takeNews() }
    func recordingEnds(at time: Int64) { inner.recordingEnds(at: time) }
    /// Only its own streams' frames are asked about: a file of one camera is cut at that
    /// camera's frames.
    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool {
        guard let own = indices[stream] else { return false }
        return try inner.wantsKeyframe(at: time, stream: own)
    }
    func videoKeyframes(anywhere: Bool) { inner.videoKeyframes(anywhere: anywhere) }
    /// Finishes the wrapped output with what its own streams got.
    func finish(_ recorded: RecordedStreams) -> OutputReport {
        inner.finish(recorded.subset(indices.sorted { $0.value < $1.value }.map(\.key)))
    }
    func close(timeout: Double) { inner.close(timeout: timeout) }
}
