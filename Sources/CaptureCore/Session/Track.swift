/// One input of a recording: the device, its reader thread and lane in the packet queue, and the
/// chain that takes its packets to the muxer (a camera's `VideoPath`, a microphone's `AudioPath`).
/// A session holds any number of them; the loop, the stall watch and the stop policy treat each
/// alike, and only what video and audio do differently (the audio ends where the video does)
/// asks which kind a track is. Used only by the recording loop's thread.
final class Track {
    /// The chain, by kind.
    enum Chain {
        case video(VideoPath)
        case audio(AudioPath)
    }

    /// The chain; a camera whose source changed mode gets a new one (`followSource`).
    var chain: Chain
    let lane: Int
    let source: InputSource
    /// The stream as the device delivers it (at its latest mode).
    var input: MediaStreamInfo
    /// The thread that reads the device into `lane`; it outlives the track at tear-down, so the
    /// device closes after the chain let go of its packets.
    let reader: InputReader
    /// A camera encoded by x264 in real time: what the encoder budget measured and chose.
    var encoderBudget: EncoderBudget?
    /// The video encoder that opened (`libx264`, `h264_vaapi`, `rawvideo`); nil for a copy.
    var encoderName: String?
    /// A camera's encoder choice, for the chain of a new mode.
    var encoderChoice: RecordingSession.EncoderChoice?
    /// A camera's chains of the modes its source had before this one, oldest first, and how
    /// often it changed mode (`QueuedPacket.generation`).
    var earlierModes: [VideoPath] = []
    var generation = 0

    init(chain: Chain, source: InputSource, input: MediaStreamInfo, reader: InputReader) {
        self.chain = chain
        self.lane = reader.lane
        self.source = source
        self.input = input
        self.reader = reader
    }

    /// The device's name, for messages.
    var device: String { source.device.name }

    /// The chain, whatever its kind.
    var path: any TrackPath {
        switch chain {
        case .video(let path): path
        case .audio(let path): path
        }
    }

    /// A camera's chain; nil for a microphone.
    var video: VideoPath? {
        if case .video(let path) = chain { return path }
        return nil
    }

    /// A camera's chains of every mode it recorded in, oldest first; none for a microphone.
    var videoModes: [VideoPath] { video.map { earlierModes + [$0] } ?? [] }

    /// A microphone's chain; nil for a camera.
    var audio: AudioPath? {
        if case .audio(let path) = chain { return path }
        return nil
    }

    /// True once the track recorded all it should, or its reader ended (`ended` holds its lane).
    func finished(_ ended: Set<Int>) -> Bool { path.done || ended.contains(lane) }
}

/// The chain of one track: decode, convert, encode (or copy), and write.
protocol TrackPath: AnyObject {
    /// True once the stream has recorded all it should.
    var done: Bool { get }
    /// Material at or after this session time (microseconds from the start) is not recorded.
    var endTime: Int64? { get set }
    /// Records one packet captured at `time` (microseconds from the start of the recording) that
    /// arrived from its device at `arrival` (session clock, microseconds).
    func process(_ packet: Packet, time: Int64, arrival: Int64, mux: EncodedStream.Mux) throws(CaptureError)
    /// Drains what the chain still holds at the end of the recording.
    func finish(mux: EncodedStream.Mux) throws(CaptureError)
}

extension VideoPath: TrackPath {}
extension AudioPath: TrackPath {}

extension [Track] {
    /// The cameras' tracks, in the order they were opened.
    var cameras: [Track] { filter { $0.video != nil } }
    /// The microphones' tracks, in the order they were opened.
    var microphones: [Track] { filter { $0.audio != nil } }
    /// The track reading `lane`.
    func track(lane: Int) -> Track? { first { $0.lane == lane } }

    /// Where the audio ends: the end of the cameras' last frames once every camera is done or has
    /// an end (the latest of them, so no camera's picture outlasts the sound), nil while one may
    /// still run on, or with no camera.
    var videoEnd: Int64? {
        let cameras = cameras.compactMap(\.video)
        guard !cameras.isEmpty, cameras.allSatisfy({ $0.done || $0.endTime != nil }) else { return nil }
        return cameras.compactMap { $0.endOfLastFrame ?? $0.endTime }.max()
    }
}
