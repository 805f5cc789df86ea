/// What feeds one stream of an output: an encoder's packets, or an input's packets as they are.
/// Every output of a recording gets the same streams in the same order, so a stream has one
/// index in all of them.
struct StreamSource {
    enum Feed {
        case encoder(Encoder)
        case copy(InputContainer, stream: Int, timeBase: Rational)
    }
    let feed: Feed
    /// The stream's title in the container's metadata (the device, for a recording of several
    /// of a kind); nil: none.
    var title: String?
    /// Where its device stands in the recording.
    struct Origin {
        var isVideo = true
        /// Its index among the devices of its kind, in the order given.
        var indexInKind = 0
        /// Its index among the recording's tracks (cameras first).
        var device = 0
    }
    var origin = Origin()

    static func encoder(_ encoder: Encoder, title: String? = nil, origin: Origin = .init()) -> StreamSource {
        StreamSource(feed: .encoder(encoder), title: title, origin: origin)
    }

    static func copy(
        _ input: InputContainer, stream: Int, timeBase: Rational, title: String? = nil, origin: Origin = .init()
    ) -> StreamSource {
        StreamSource(feed: .copy(input, stream: stream, timeBase: timeBase), title: title, origin: origin)
    }
}

extension OutputContainer {
    /// Adds a stream fed by `source` (`addStream(encoder:priming:)` or `addStream(copying:)`),
    /// titled as it says; `priming` is an encoder's (nil: the encoder's own).
    ///
    /// - Returns: the stream's index.
    func addStream(_ source: StreamSource, priming: Int? = nil) throws(FFmpegError) -> Int {
        let index: Int
        switch source.feed {
        case .encoder(let encoder):
            index = try addStream(encoder: encoder, priming: priming)
        case .copy(let input, let stream, let timeBase):
            index = try addStream(copying: input, stream: stream, timeBase: timeBase)
        }
        if let title = source.title { setTitle(title, stream: index) }
        return index
    }
}

/// What the recording's streams held at its end, for an output to check itself against.
struct RecordedStreams {
    /// What one stream got.
    struct Stream {
        var isVideo: Bool
        /// Frames or samples written.
        var written: Int
        /// Seconds from the start to the end of its last frame or sample.
        var end: Double
        /// Seconds a video's frames span at its rate, from the first one's slot to the end of the
        /// last one's; nil for audio. The length of a raw stream whose demuxer reads none (.h264).
        var frameSpan: Double?
    }

    /// The recording's streams, in their order in the outputs.
    var streams: [Stream]

    /// Streams the recording has.
    var count: Int { streams.count }
    /// Streams that got at least one frame or sample.
    var withData: Int { streams.filter { $0.written > 0 }.count }
    /// True when anything was encoded or copied.
    var wroteAnything: Bool { withData > 0 }
    /// One picture and nothing else: where packets carry no duration (.nut) it has no length.
    var onePicture: Bool {
        streams.filter(\.isVideo).reduce(0) { $0 + $1.written } == 1
            && streams.allSatisfy { $0.isVideo || $0.written == 0 }
    }
    /// Seconds from the start to the end of the last frame or sample written.
    var encodedDuration: Double { ((streams.map(\.end).max() ?? 0) * 1000).rounded() / 1000 }
    /// The first video stream's frame span; nil without video.
    var frameSpan: Double? { streams.first(where: \.isVideo)?.frameSpan }

    /// The streams at `indices` only: what an output fed some of them holds.
    func subset(_ indices: [Int]) -> RecordedStreams {
        RecordedStreams(streams: indices.filter { streams.indices.contains($0) }.map { streams[$0] })
    }
}

/// How one output ended, for the summary.
struct OutputReport {
    /// The path, the series' pattern, or the stream's printable URL.
    var name: String
    /// Bytes on disk (a file as stat(2) finds it, every file of a series) or sent over the network.
    var bytes: Int64
    /// Seconds it lasts, read back as a player would; nil when it cannot be read back (a series,
    /// a stream), and the length encoded stands.
    var duration: Double?
    /// Files a series opened.
    var segments: Int?
    /// Clips opened (event clips), and what their pre-roll held at the end.
    var clips: Int?
    var preRoll: PreRollReport?
    /// Why a finished MP4 stays fragmented.
    var finishProblem: String?
    /// A network stream's report.
    var stream: StreamReport?
    /// What went wrong finishing an output that carries the recording: its trailer, or a file
    /// that does not read back (exit 74).
    var failure: CaptureError?
}

extension OutputReport {
    /// One report for the outputs the recording lives in: the one's own, or for a file per
    /// device, under `name` their bytes and segments summed, the longest duration and the first
    /// problem; nil for none.
    static func combined(_ reports: [OutputReport], name: String) -> OutputReport? {
        guard reports.count > 1 else { return reports.first }
        var report = OutputReport(name: name, bytes: reports.reduce(0) { $0 + $1.bytes })
        report.duration = reports.compactMap(\.duration).max()
        let segments = reports.compactMap(\.segments)
        report.segments = segments.isEmpty ? nil : segments.reduce(0, +)
        report.finishProblem = reports.lazy.compactMap(\.finishProblem).first
        report.failure = reports.lazy.compactMap(\.failure).first
        return report
    }
}

/// Anything a recording's packets go to: its file, a series of files, a network stream. The
/// session holds them behind one `OutputTee` and never tells them apart; a new kind of output is
/// one new type here and a line in `OutputFactory`.
///
/// Called from the recording loop's thread only; a type that runs threads of its own says so.
protocol RecordingOutput: AnyObject {
    /// Its name in messages and the summary: the path, the series' pattern, the printable URL.
    var name: String { get }
    /// True when the recording lives in it (the file, the series): a write that fails ends the
    /// recording, and the recording's summary is its. False for a network stream, which fails
    /// alone while the recording goes on.
    var carriesRecording: Bool { get }
    /// True when its muxer wants codec headers in extradata (`AVFMT_GLOBALHEADER`).
    var wantsGlobalHeader: Bool { get }
    /// True when its container keeps no timestamps (raw .h264), so empty frame slots are filled.
    var storesNoTimestamps: Bool { get }
    /// Adds a stream; the same index as in every other output.
    ///
    /// - Throws: `FFmpegError` from `avformat_new_stream` or the parameters' copy.
    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int
    /// True when a stream can be fed by another encoder midway (`replaceStream`): a series of
    /// files starts its next one with the new stream's parameters. False for the others, whose
    /// streams' size and rate are fixed once the header is written.
    var followsStreamChanges: Bool { get }
    /// Feeds stream `index` from `source` from its next packet on (a camera whose source changed
    /// mode); only when `followsStreamChanges`.
    ///
    /// - Throws: `FFmpegError` from `avformat_new_stream` or the parameters' copy.
    func replaceStream(_ index: Int, with source: StreamSource) throws(FFmpegError)
    /// Readies it once the devices are open, before the first packet: a stream connects.
    ///
    /// - Throws: `.unreachable` (69) for a server that cannot be reached.
    func connect(stop: InterruptFlag) throws(CaptureError)
    /// Starts what runs beside the loop (a stream's writer thread), after every output connected.
    func start()
    /// Takes one packet for `stream`. An output that carries the recording takes its payload
    /// (the muxer's `av_interleaved_write_frame`); the others take a reference and leave it be.
    ///
    /// - Throws: `.outputExists`, `.cannotCreate` (73) for a file that cannot be made at the first
    ///   packet; `.io` (74) for a write that fails.
    func write(_ packet: Packet, stream: Int) throws(CaptureError)
    /// Hands what the muxer holds to the kernel (twice a second), so a killed recording keeps it.
    ///
    /// - Throws: `.io` (74).
    func flush() throws(CaptureError)
    /// True once a packet reached it: a file's header is written, a stream was given a packet.
    var started: Bool { get }
    /// Bytes written or sent so far.
    var bytesWritten: Int64 { get }
    /// Why it ended for good while the recording goes on (a stream past its reconnect timeout).
    var lostReason: String? { get }
    /// What happened since the last call: events for `onEvent`, lines for `onWarning`.
    func takeNews() -> (events: [RecordingEvent], warnings: [String])
    /// Where the recording ends (`--duration`), microseconds from its start.
    func recordingEnds(at time: Int64)
    /// Asked for each video frame that could start something new (a segment), with its time in
    /// microseconds from the start and its stream's index: true when that frame must be a
    /// keyframe.
    ///
    /// - Throws: `.io` (74) when the next file cannot be opened.
    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool
    /// A trigger at `time` (microseconds from the start), for event clips: `reason` says what
    /// came (`SIGUSR1`, `stdin`, `level`).
    ///
    /// - Throws: `.outputExists`, `.cannotCreate` (73) when the clip's file cannot be made.
    func trigger(at time: Int64, reason: String) throws(CaptureError)
    /// Whether the video may have a keyframe at any frame (encoded, or an intra-only copy) or
    /// only where the camera put one.
    func videoKeyframes(anywhere: Bool)
    /// Ends it: what is queued, the trailer, a rewrite, the read-back. Called once, at the end.
    func finish(_ recorded: RecordedStreams) -> OutputReport
    /// Lets go of it after an error, waiting `timeout` seconds at most. Safe after `finish`.
    func close(timeout: Double)
}

extension RecordingOutput {
    var storesNoTimestamps: Bool { false }
    var followsStreamChanges: Bool { false }
    func replaceStream(_ index: Int, with source: StreamSource) throws(FFmpegError) {}
    func connect(stop: InterruptFlag) throws(CaptureError) {}
    func start() {}
    func flush() throws(CaptureError) {}
    var lostReason: String? { nil }
    func takeNews() -> (events: [RecordingEvent], warnings: [String]) { ([], []) }
    func recordingEnds(at time: Int64) {}
    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool { false }
    func videoKeyframes(anywhere: Bool) {}
    func trigger(at time: Int64, reason: String) throws(CaptureError) {}
    func close(timeout: Double) {}
}
