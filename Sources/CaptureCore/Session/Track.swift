/// One stream of a recording: the device's lane in the packet queue (fed by its reader thread),
/// the chain that takes its packets to the muxer (`VideoPath`, `AudioPath`), and what the device
/// delivers. Used only by the recording loop's thread.
final class Track<Path: TrackPath> {
    let path: Path
    let lane: Int
    let source: InputSource
    /// The stream as the device delivers it.
    let input: MediaStreamInfo

    init(path: Path, lane: Int, source: InputSource, input: MediaStreamInfo) {
        self.path = path
        self.lane = lane
        self.source = source
        self.input = input
    }

    /// The device's name, for messages.
    var device: String { source.device.name }
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
