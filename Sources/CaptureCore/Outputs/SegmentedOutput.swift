import Dispatch
import FoundationEssentials
import Glibc

/// A recording's file cut into a series of complete files (`SegmentPlan`), each with
/// the same streams, each starting at time 0 with a keyframe.
///
/// Where a segment ends is decided before its last frames come out of the encoder: the video path
/// asks `cut(at:)` for each frame that may start a segment (every frame it encodes, whose
/// keyframe it then orders; every keyframe it copies), and when the segment is long or large
/// enough the next file is opened there and then, its header written, so the recording never
/// waits for a file. From that instant on, packets are routed by time: video up to the keyframe
/// and audio before the cut to the old file, the rest to the new one. Whole audio packets go one
/// way or the other, so no sample is lost or written twice, and each segment's audio starts within
/// one audio frame of its video. In an MP4 or MOV series a later segment's AAC or Opus stream
/// starts with copies of the packets before its first (`Encoder.decoderPreroll`), which its edit
/// list skips, so its decoder starts primed, as at the start of the recording, rather than fading
/// in over 10 ms (AAC) or 80 ms (Opus). Matroska has no such list: FFmpeg's muxer plays AAC's
/// priming as time and moves the whole file by Opus's, so there each later file starts unprimed,
/// in step. Once both streams have passed the cut, the old file is finished (trailer, an MP4's
/// index moved to the front) on a thread of its own; `takeEvents` reports it and applies the
/// retention policy. A recording with no video cuts at the first audio packet at or
/// after the boundary.
///
/// Boundaries lie on a grid from the start of the recording (segment n ends at n times the
/// length), so the series does not drift however the cuts fall.
///
/// Threads: everything but the finishing runs on the recording loop's thread; the finishers
/// share only `lock`'s state.
final class SegmentedOutput: @unchecked Sendable {
    let plan: SegmentPlan
    let formatName: String
    let options: [String: String]
    let replacing: Bool
    private var sources: [StreamSource] = []
    private var videoStreams: Set<Int> = []
    /// Streams of raw PCM, whose packets are cut at the very sample where a segment starts.
    private var pcmStreams: Set<Int> = []
    /// The packets a later segment's AAC or Opus stream starts with.
    private var priming = SegmentPriming()
    /// The file packets go to; before the first packet, a container with no file yet.
    private(set) var current: SeriesFileWriter
    /// The file before a cut, until both streams have passed it.
    private var closing: SeriesFileWriter?
    private var pendingCut: Int64?

    /// Deletes what the retention policy no longer keeps; used by the loop's thread only.
    private let sweeper: SegmentSweeper
    private let lock = Condition()
    private let finishers = DispatchGroup()
    // Under `lock`.
    private var events: [RecordingEvent] = []
    private var finishedPaths: [String] = []
    private var numbers: [String: Int] = [:]
    private var finishedBytes: Int64 = 0
    private var inFlight: Set<String> = []
    /// Closed segments' events in the order the segments closed, whichever finished first.
    private var closedOrder = StartOrder<RecordingEvent>()

    /// Prepares the first segment's muxer; no file is created yet.
    init(plan: SegmentPlan, formatName: String, options: [String: String], replacing: Bool)
        throws(FFmpegError)
    {
        self.plan = plan
        self.formatName = formatName
        self.options = options
        self.replacing = replacing
        sweeper = SegmentSweeper(plan: plan)
        current = SeriesFileWriter(
            number: 1, container: try OutputContainer(name: plan.template.pattern, formatName: formatName))
    }

    var wantsGlobalHeader: Bool { current.container.wantsGlobalHeader }
    private var hasVideo: Bool { !videoStreams.isEmpty }
    private var hasAudio: Bool { videoStreams.count < sources.count }
    /// True once the first segment's header is written.
    var started: Bool { current.number > 1 || current.container.headerWritten }
    /// Segments opened so far.
    var count: Int { started ? current.number : 0 }
    /// Bytes of every segment this run wrote, the current one's so far included.
    var bytesWritten: Int64 {
        let finished = lock.withLock { finishedBytes }
        return closedAll ? finished : finished + current.container.bytesWritten + (closing?.container.bytesWritten ?? 0)
    }
    /// Set by `finish`.
    private var closedAll = false

    /// Adds a stream to the first segment, and to every later one when it opens.
    ///
    /// - Returns: the stream's index.
    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        sources.append(source)
        let index = try add(source, index: sources.count - 1, to: current.container, first: current.number == 1)
        if current.container.isVideo(index) { videoStreams.insert(index) }
        if case .encoder(let encoder) = source.feed {
            if encoder.name.hasPrefix("pcm_") { pcmStreams.insert(index) }
            let preroll = encoder.decoderPreroll
            if preroll > 0 && FastStartRewrite.muxers.contains(formatName) { priming.prerolls[index] = preroll }
        }
        return index
    }

    /// - Parameter first: true for the first file, which keeps the encoder's own priming; a later
    ///   one has its pre-roll, or none.
    private func add(_ source: StreamSource, index: Int, to container: OutputContainer, first: Bool)
        throws(FFmpegError) -> Int
    {
        try container.addStream(source, priming: first ? nil : priming.prerolls[index] ?? 0)
    }

    /// Where the recording ends (`--duration`), microseconds on its clock; nil when not known.
    /// A boundary there opens no segment: the audio that may run a little past the video's end
    /// stays in the last file rather than start one of its own.
    var endTime: Int64?

    /// Where the current segment reaches its length, microseconds on the recording's clock; nil
    /// without a length, or when the recording ends there.
    private var boundary: Int64? {
        guard let seconds = plan.seconds else { return nil }
        let time = Int64((Double(current.number) * seconds * 1e6).rounded())
        return endTime.map { time < $0 } ?? true ? time : nil
    }

    /// Feeds stream `index` from `source` from now on (a camera whose source changed mode, its
    /// old encoder drained): the next frame `cut(at:)` is asked about starts the next segment,
    /// whose stream has the new parameters.
    func replace(_ index: Int, with source: StreamSource) {
        sources[index] = source
        streamReplaced = true
    }

    /// Set by `replace` until the next segment has started.
    private var streamReplaced = false

    /// Called by the video path for a frame at `time` (microseconds on the recording's clock)
    /// that can start a segment. Opens the next segment there when the current one has reached
    /// its length or size, or a stream was replaced (its old frames are all written).
    ///
    /// - Returns: true when a segment starts with this frame: an encoded frame must then be a
    ///   keyframe.
    /// - Throws: `.outputExists`, `.cannotCreate` or `.io` when the next file cannot be made.
    func cut(at time: Int64) throws(CaptureError) -> Bool {
        if streamReplaced {
            streamReplaced = false
            // A cut still waiting for its audio ends here: the new stream goes to the newest file.
            finishClosing()
            guard current.container.headerWritten else {
                current = SeriesFileWriter(
                    number: current.number, container: try makeContainer(first: current.number == 1))
                return true
            }
            try openNext(at: time)
            closing?.videoDone = true
            return true
        }
        // Audio reached the boundary first and opened the next segment there: this frame is its
        // first.
        if videoOwesKeyframe, let cut = pendingCut, time >= cut {
            videoOwesKeyframe = false
            return true
        }
        guard isDue(at: time) else { return false }
        try openNext(at: time)
        return true
    }

    /// Set when the video path can start a segment on any frame (it encodes, or every frame it
    /// copies is a keyframe): audio that reaches a boundary before the video does then opens the
    /// next segment on the boundary itself, and is cut there.
    var videoCutsAnywhere = true
    /// A segment opened by audio on a boundary whose first frame the video path has not ordered
    /// a keyframe for yet.
    private var videoOwesKeyframe = false

    /// True when the current segment has reached its length at `time`, or its size.
    private func isDue(at time: Int64) -> Bool {
        guard closing == nil, current.container.headerWritten, current.frames > 0 || current.samples > 0 else {
            return false
        }
        let long = boundary.map { time >= $0 } ?? false
        let large = plan.bytes.map { current.container.bytesWritten >= $0 } ?? false
        return long || large
    }

    /// Opens the next segment, starting at `time`; the current one finishes once both streams
    /// have passed it.
    private func openNext(at time: Int64) throws(CaptureError) {
        let next = SeriesFileWriter(number: current.number + 1, container: try makeContainer(first: false))
        try open(next, at: time)
        closing = current
        current = next
        pendingCut = time
        if videoStreams.isEmpty { closing?.videoDone = true }
        if videoStreams.count == sources.count { closing?.audioDone = true }
    }

    /// A segment's muxer with every stream, none of its file made yet.
    private func makeContainer(first: Bool) throws(CaptureError) -> OutputContainer {
        try media("preparing the next segment") { () throws(FFmpegError) in
            let container = try OutputContainer(name: plan.template.pattern, formatName: formatName)
            for (index, source) in sources.enumerated() {
                _ = try add(source, index: index, to: container, first: first)
            }
            return container
        }
    }

    /// Writes its header to the segment's file, named from the template for `time`.
    private func open(_ segment: SeriesFileWriter, at time: Int64) throws(CaptureError) {
        let path = plan.template.path(number: segment.number, date: Date())
        // A name this recording gave before is never written again, whatever --force says.
        if lock.withLock({ numbers[path] != nil }) || path == current.path || path == closing?.path {
            throw .cannotCreate(
                path: path,
                reason: "the template gave this name to an earlier segment of this recording; "
                    + "add %n or a finer time field to it")
        }
        // The first file keeps the recording's own times (an encoder's priming before 0).
        let origins = (0..<sources.count).map { stream in
            segment.number == 1 || videoStreams.contains(stream)
                ? segment.container.ticks(ofMicroseconds: time, stream: stream) : nil
        }
        try segment.create(
            path: path, at: time, origins: origins, options: options, replacing: replacing, formatName: formatName)
        lock.withLock {
            numbers[path] = segment.number
            events.append(
                RecordingEvent(event: .segmentOpened, path: path, number: segment.number, start: Self.seconds(time)))
        }
    }

    /// Writes a packet (encoder ticks on the recording's clock) to the segment it belongs in,
    /// opening the first segment on the first packet.
    ///
    /// - Throws: the file's errors (`.outputExists`, `.cannotCreate` for a file that cannot be
    ///   made, `.io` for a failed write: disk full).
    func write(_ packet: Packet, stream: Int) throws(CaptureError) {
        let isVideo = videoStreams.contains(stream)
        let ticks = packet.pts ?? packet.dts ?? 0
        let time = current.container.microseconds(ofTicks: ticks, stream: stream)
        if !current.container.headerWritten { try open(current, at: 0) }
        if !isVideo && (videoStreams.isEmpty || videoCutsAnywhere) && closing == nil {
            // Audio that reaches a boundary opens the next segment on it: raw PCM is cut there,
            // inside its packet; a packet of another codec goes whole to the side it starts on,
            // so only one that starts on or past the boundary opens it (the last packet of a
            // recording that ends on a boundary would otherwise leave an empty file behind).
            // Not while the last cut waits for the video: another would leave that file unfinished.
            let end = time + current.container.microseconds(ofTicks: packet.duration, stream: stream)
            let reach = pcmStreams.contains(stream) ? end : time + 1
            if let boundary, reach > boundary, isDue(at: reach) {
                try openNext(at: boundary)
                videoOwesKeyframe = !videoStreams.isEmpty
            } else if videoStreams.isEmpty, isDue(at: time) {
                try openNext(at: time)
            }
        }
        var target = current
        if let closing, let cut = pendingCut {
            if isVideo {
                if packet.isKeyframe && time >= cut {
                    closing.videoDone = true
                } else if !closing.videoDone {
                    target = closing
                }
            } else if time < cut && !closing.audioDone {
                target = closing
                // Raw PCM across the cut: the head ends the old file, the rest starts the new one.
                if pcmStreams.contains(stream),
                    let tail = try media(
                        "cutting audio",
                        { () throws(FFmpegError) in
                            try packet.splitPCM(
                                at: current.container.ticks(ofMicroseconds: cut, stream: stream) - ticks)
                        })
                {
                    try put(packet, stream: stream, time: time, into: closing)
                    closing.audioDone = true
                    try put(tail, stream: stream, time: cut, into: current)
                    return finishClosingIfDone()
                }
            } else {
                closing.audioDone = true
            }
        }
        try put(packet, stream: stream, time: time, into: target)
        finishClosingIfDone()
    }

    /// Writes a packet that starts at `time` into `segment`, on the segment's own times.
    private func put(_ packet: Packet, stream: Int, time: Int64, into segment: SeriesFileWriter) throws(CaptureError) {
        try segment.put(
            packet, stream: stream, time: time, isVideo: videoStreams.contains(stream), priming: &priming,
            remembering: true, kept: "the segment")
    }

    private func finishClosingIfDone() {
        if let closing, closing.videoDone && closing.audioDone { finishClosing() }
    }

    /// Pushes what the open files' muxers buffer to disk.
    func flush() throws(CaptureError) {
        for segment in [closing, current].compactMap({ $0 }) {
            do throws(FFmpegError) { try segment.container.flush() } catch {
                throw .writeFailed(error, subject: segment.path, kept: "the segment")
            }
        }
    }

    /// Hands the closing segment to a thread of its own to be finished.
    private func finishClosing() {
        guard let segment = closing else { return }
        closing = nil
        pendingCut = nil
        let ticket = lock.withLock {
            inFlight.insert(segment.path)
            return closedOrder.start()
        }
        finishers.enter()
        let format = formatName
        let (hasVideo, hasAudio) = (self.hasVideo, self.hasAudio)
        DetachedThread.start(name: "capture segment") { [self] in
            let event = segment.finish(formatName: format, hasVideo: hasVideo, hasAudio: hasAudio)
            segment.unlock()
            lock.withLock {
                record(event, ticket: ticket)
                inFlight.remove(segment.path)
            }
            finishers.leave()
        }
    }

    /// Notes a closed segment; under `lock`.
    private func record(_ event: RecordingEvent, ticket: Int) {
        events += closedOrder.finish(ticket, event)
        guard let path = event.path else { return }
        finishedPaths.append(path)
        numbers[path] = event.number
        finishedBytes += event.size ?? 0
    }

    /// Finishes every open segment (on the caller's thread) and waits for those being finished.
    ///
    /// - Returns: the first error, if finishing one failed.
    func finishSeries() -> CaptureError? {
        // The ones being finished first, so that the events come in order.
        finishers.wait()
        var failure: CaptureError?
        for segment in [closing, current].compactMap({ $0 }) where segment.container.headerWritten {
            let event = segment.finish(formatName: formatName, hasVideo: hasVideo, hasAudio: hasAudio)
            segment.unlock()
            if let problem = event.problem, failure == nil { failure = .io(subject: segment.path, reason: problem) }
            lock.withLock { record(event, ticket: closedOrder.start()) }
        }
        closing = nil
        closedAll = true
        finishers.wait()
        return failure
    }

    /// What happened since the last call, in order; deletes what the retention policy no longer
    /// keeps once a segment is closed, and reports those too.
    func takeEvents() -> [RecordingEvent] {
        var taken = lock.withLock {
            defer { events = [] }
            return events
        }
        guard !plan.retention.isEmpty else { return taken }
        let closed = taken.contains { $0.event == .segmentClosed }
        let shortBy = closedAll ? 0 : sweeper.shortfall(written: bytesWritten, over: current.end)
        guard closed || shortBy > 0 else { return taken }
        let (written, busy) = lock.withLock { (finishedPaths, inFlight) }
        let open = current.container.headerWritten && !closedAll ? current.path : nil
        let deleted = sweeper.sweep(
            written: written, busy: busy.union([closing?.path].compactMap { $0 }), open: open,
            openBytes: open == nil ? 0 : current.container.bytesWritten, closed: closed, shortBy: shortBy)
        for (path, bytes) in deleted {
            let number = lock.withLock { numbers[path] }
            taken.append(RecordingEvent(event: .segmentDeleted, path: path, number: number, size: bytes))
        }
        return taken
    }

    /// A line for the user, once: the disk filled and the oldest segments make room.
    func takeWarning() -> String? { sweeper.takeWarning() }

    /// Seconds, rounded to the millisecond, as events give times.
    static func seconds(_ microseconds: Int64) -> Double { (Double(microseconds) / 1000).rounded() / 1000 }
}
