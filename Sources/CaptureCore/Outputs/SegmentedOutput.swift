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
    /// One file of the series. Used by the loop's thread until it is handed whole to a finisher,
    /// after which nothing else touches it.
    final class Segment: @unchecked Sendable {
        let number: Int
        let container: OutputContainer
        /// Set when its header is written.
        var path = ""
        /// Where it starts on the recording's clock, microseconds.
        var start: Int64 = 0
        /// Per stream, the ticks that become its 0: the cut for video, the first packet's start
        /// for audio (within one audio packet of the cut), so that both start at 0.
        var origins: [Int64?] = []
        var frames = 0
        var samples: Int64 = 0
        /// The end of its last packet, microseconds on the recording's clock.
        var end: Int64 = 0
        /// Set once no more video (audio) can come for it: the cut's keyframe (an audio packet
        /// past the cut) went to the next one.
        var videoDone = false
        var audioDone = false
        /// Holds the file's `SegmentLock` from its header until it is finished; -1 when none.
        var lockDescriptor: Int32 = -1

        init(number: Int, container: OutputContainer) {
            self.number = number
            self.container = container
        }

        deinit { unlock() }

        /// Drops the file's `SegmentLock`: another recorder's retention may delete it from now on.
        func unlock() {
            SegmentLock.release(lockDescriptor)
            lockDescriptor = -1
        }
    }

    let plan: SegmentPlan
    let formatName: String
    let options: [String: String]
    let replacing: Bool
    private var sources: [StreamSource] = []
    private var videoStreams: Set<Int> = []
    /// Streams of raw PCM, whose packets are cut at the very sample where a segment starts.
    private var pcmStreams: Set<Int> = []
    /// Per stream whose decoder needs the samples before its first (AAC, Opus), how many per
    /// channel a later segment starts with, and the last packets written, which hold them.
    private var prerolls: [Int: Int] = [:]
    private var recent: [Int: [Packet]] = [:]
    /// The file packets go to; before the first packet, a container with no file yet.
    private(set) var current: Segment
    /// The file before a cut, until both streams have passed it.
    private var closing: Segment?
    private var pendingCut: Int64?

    private let lock = Condition()
    private let finishers = DispatchGroup()
    // Under `lock`.
    private var events: [RecordingEvent] = []
    private var finishedPaths: [String] = []
    private var numbers: [String: Int] = [:]
    private var finishedBytes: Int64 = 0
    private var inFlight: Set<String> = []

    /// Prepares the first segment's muxer; no file is created yet.
    init(plan: SegmentPlan, formatName: String, options: [String: String], replacing: Bool)
        throws(FFmpegError)
    {
        self.plan = plan
        self.formatName = formatName
        self.options = options
        self.replacing = replacing
        current = Segment(
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
        let index = try add(source, index: sources.count - 1, to: current.container)
        if current.container.isVideo(index) { videoStreams.insert(index) }
        if case .encoder(let encoder) = source {
            if encoder.name.hasPrefix("pcm_") { pcmStreams.insert(index) }
            let preroll = encoder.decoderPreroll
            if preroll > 0 && FastStartRewrite.muxers.contains(formatName) { prerolls[index] = preroll }
        }
        return index
    }

    private func add(_ source: StreamSource, index: Int, to container: OutputContainer) throws(FFmpegError) -> Int {
        switch source {
        case .encoder(let encoder):
            // The first file keeps the encoder's own priming; a later one has its pre-roll, or none.
            let first = container === current.container && current.number == 1
            return try container.addStream(encoder: encoder, priming: first ? nil : prerolls[index] ?? 0)
        case .copy(let input, let stream, let timeBase):
            return try container.addStream(copying: input, stream: stream, timeBase: timeBase)
        }
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

    /// Called by the video path for a frame at `time` (microseconds on the recording's clock)
    /// that can start a segment. Opens the next segment there when the current one has reached
    /// its length or size.
    ///
    /// - Returns: true when a segment starts with this frame: an encoded frame must then be a
    ///   keyframe.
    /// - Throws: `.outputExists`, `.cannotCreate` or `.io` when the next file cannot be made.
    func cut(at time: Int64) throws(CaptureError) -> Bool {
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
        let next = Segment(
            number: current.number + 1,
            container: try media("preparing the next segment") {
                () throws(FFmpegError) in try OutputContainer(name: plan.template.pattern, formatName: formatName)
            })
        for (index, source) in sources.enumerated() {
            _ = try media("preparing the next segment") { () throws(FFmpegError) in
                try add(source, index: index, to: next.container)
            }
        }
        try open(next, at: time)
        closing = current
        current = next
        pendingCut = time
        if videoStreams.isEmpty { closing?.videoDone = true }
        if videoStreams.count == sources.count { closing?.audioDone = true }
    }

    /// Writes its header to the segment's file, named from the template for `time`.
    private func open(_ segment: Segment, at time: Int64) throws(CaptureError) {
        let path = plan.template.path(number: segment.number, date: Date())
        // A name this recording gave before is never written again, whatever --force says.
        if lock.withLock({ numbers[path] != nil }) || path == current.path || path == closing?.path {
            throw .cannotCreate(
                path: path,
                reason: "the template gave this name to an earlier segment of this recording; "
                    + "add %n or a finer time field to it")
        }
        segment.path = path
        segment.start = time
        segment.end = time
        segment.origins = (0..<sources.count).map { stream in
            // The first file keeps the recording's own times (an encoder's priming before 0).
            segment.number == 1 || videoStreams.contains(stream)
                ? segment.container.ticks(ofMicroseconds: time, stream: stream) : nil
        }
        do {
            // Locked before it has its name, so another recorder's retention never finds it unlocked.
            try OutputFile(path: path).create(segment.container, options: options, replacing: replacing) {
                segment.lockDescriptor = SegmentLock.hold($0)
            }
        } catch {
            segment.unlock()
            if error.call == "rename" && error.errno == EEXIST { throw .outputExists(path: path) }
            if error.call == "avio_open" || error.call == "rename" {
                throw .cannotCreate(path: path, reason: error.description)
            }
            throw .failed("\(path): the \(formatName) muxer refused the streams: \(error)")
        }
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
        if !isVideo && (videoStreams.isEmpty || videoCutsAnywhere) {
            // Audio that reaches a boundary opens the next segment on it: raw PCM is cut there,
            // inside its packet; a packet of another codec goes whole to the side it starts on,
            // so only one that starts on or past the boundary opens it (the last packet of a
            // recording that ends on a boundary would otherwise leave an empty file behind).
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
    private func put(_ packet: Packet, stream: Int, time: Int64, into segment: Segment) throws(CaptureError) {
        let ticks = packet.pts ?? packet.dts ?? 0
        if segment.origins[stream] == nil, let preroll = prerolls[stream] {
            try prime(segment, stream: stream, samples: preroll, before: packet)
        }
        if prerolls[stream] != nil { try remember(packet, stream: stream) }
        let origin = segment.origins[stream] ?? ticks
        segment.origins[stream] = origin
        // A video packet without a duration lasts one frame: its stream's tick.
        let length = packet.duration > 0 ? packet.duration : videoStreams.contains(stream) ? 1 : 0
        let end = time + segment.container.microseconds(ofTicks: length, stream: stream)
        packet.pts = packet.pts.map { $0 - origin }
        packet.dts = packet.dts.map { $0 - origin }
        // An encoder's priming (AAC's first packet, before 0) is no recorded sample.
        if videoStreams.contains(stream) {
            segment.frames += 1
        } else {
            segment.samples += max(0, min(packet.duration, ticks + packet.duration))
        }
        segment.end = max(segment.end, end)
        do {
            try segment.container.write(packet, stream: stream)
        } catch {
            throw Self.writeError(error, path: segment.path)
        }
    }

    /// Writes into a later segment, ahead of its first packet of `stream` (`first`), the packets
    /// before it that carry `samples` per channel, on times before the segment's 0: its priming.
    /// Where fewer came before (a microphone that started late), the earliest one known stands
    /// in for the rest: a decoder only warms up on them, and players skip them.
    private func prime(_ segment: Segment, stream: Int, samples: Int, before first: Packet) throws(CaptureError) {
        let origin = first.pts ?? first.dts ?? 0
        var carried: [Packet] = []
        var covered: Int64 = 0
        let known = recent[stream] ?? []
        var index = known.count - 1
        while covered < Int64(samples) {
            let source = index >= 0 ? known[index] : carried.first ?? first
            guard source.duration > 0 else { break }
            let copy = try media("priming a segment") { () throws(FFmpegError) in try Packet(referencing: source) }
            covered += copy.duration
            copy.pts = -covered
            copy.dts = -covered
            carried.insert(copy, at: 0)
            index -= 1
        }
        segment.origins[stream] = origin
        for packet in carried {
            do {
                try segment.container.write(packet, stream: stream)
            } catch {
                throw Self.writeError(error, path: segment.path)
            }
        }
    }

    /// Keeps a reference to `packet` (written next, which takes its payload) among the last ones of
    /// `stream`, as many as a later segment's priming needs.
    private func remember(_ packet: Packet, stream: Int) throws(CaptureError) {
        var kept = recent[stream] ?? []
        kept.append(try media("priming a segment") { () throws(FFmpegError) in try Packet(referencing: packet) })
        let needed = Int64(prerolls[stream] ?? 0)
        while kept.count > 1 && kept.dropFirst().reduce(0, { $0 + $1.duration }) >= needed { kept.removeFirst() }
        recent[stream] = kept
    }

    private func finishClosingIfDone() {
        if let closing, closing.videoDone && closing.audioDone { finishClosing() }
    }

    /// Pushes what the open files' muxers buffer to disk.
    func flush() throws(CaptureError) {
        for segment in [closing, current].compactMap({ $0 }) {
            do throws(FFmpegError) { try segment.container.flush() } catch {
                throw Self.writeError(error, path: segment.path)
            }
        }
    }

    /// Hands the closing segment to a thread of its own to be finished.
    private func finishClosing() {
        guard let segment = closing else { return }
        closing = nil
        pendingCut = nil
        lock.withLock { _ = inFlight.insert(segment.path) }
        finishers.enter()
        let format = formatName
        let (hasVideo, hasAudio) = (self.hasVideo, self.hasAudio)
        DetachedThread.start(name: "capture segment") { [self] in
            let event = Self.finish(segment, formatName: format, hasVideo: hasVideo, hasAudio: hasAudio)
            segment.unlock()
            lock.withLock {
                record(event)
                inFlight.remove(segment.path)
            }
            finishers.leave()
        }
    }

    /// Writes the trailer, moves an MP4's index to the front, and says what the file holds.
    private static func finish(_ segment: Segment, formatName: String, hasVideo: Bool, hasAudio: Bool) -> RecordingEvent
    {
        var problem: String?
        do {
            try segment.container.finish()
            if FastStartRewrite.muxers.contains(formatName) {
                try FastStartRewrite.rewrite(path: segment.path, formatName: formatName, spans: segment.container.spans)
            }
        } catch {
            problem = error.errno == ENOSPC ? "disk full (no space left on device)" : "\(error)"
        }
        var status = stat()
        let size = stat(segment.path, &status) == 0 ? Int64(status.st_size) : segment.container.bytesWritten
        return RecordingEvent(
            event: .segmentClosed, path: segment.path, number: segment.number, start: seconds(segment.start),
            duration: seconds(segment.end - segment.start), frames: hasVideo ? segment.frames : nil,
            samples: hasAudio ? segment.samples : nil, size: size, problem: problem)
    }

    /// Notes a closed segment; under `lock`.
    private func record(_ event: RecordingEvent) {
        events.append(event)
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
            let event = Self.finish(segment, formatName: formatName, hasVideo: hasVideo, hasAudio: hasAudio)
            segment.unlock()
            if let problem = event.problem, failure == nil { failure = .io(subject: segment.path, reason: problem) }
            lock.withLock { record(event) }
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
        let shortBy = closedAll ? 0 : spaceShortfall()
        guard closed || shortBy > 0 else { return taken }
        let (written, busy) = lock.withLock { (finishedPaths, inFlight) }
        // Never a file this run has open, being finished, or about to finish; nor one another
        // capture process has open or is finishing (the same template in the same folder): that
        // is no finished file of the series yet, and it counts for no limit.
        let files = SeriesFile.list(template: plan.template, written: written).filter {
            !busy.contains($0.path) && $0.path != closing?.path && !SegmentLock.isHeld($0.path)
        }
        let open = current.container.headerWritten && !closedAll ? current.path : nil
        let openBytes = open == nil ? 0 : current.container.bytesWritten
        var doomed = closed ? plan.retention.deletions(among: files, current: open, currentBytes: openBytes) : []
        if shortBy > 0 {
            // The disk fills before the limits are reached: the oldest go now, so the recording
            // goes on rather than ending on a full disk.
            let left = files.filter { file in !doomed.contains { $0.path == file.path } }
            let room = RetentionPolicy.freeing(shortBy, among: left, current: open)
            if !room.isEmpty && !warnedFull {
                warnedFull = true
                pendingWarning =
                    "the disk holding \(plan.template.pattern) is nearly full; deleting the oldest segments "
                    + "of the series to make room"
            }
            doomed += room
        }
        // Checked again at the unlink: another recorder may have opened the name since the listing.
        for file in doomed {
            guard let bytes = SegmentLock.deleteIfFree(file.path) else { continue }
            let number = lock.withLock { numbers[file.path] }
            taken.append(RecordingEvent(event: .segmentDeleted, path: file.path, number: number, size: bytes))
        }
        return taken
    }

    /// A line for the user, once: the disk filled and the oldest segments make room.
    func takeWarning() -> String? {
        defer { pendingWarning = nil }
        return pendingWarning
    }
    private var pendingWarning: String?
    private var warnedFull = false

    /// Bytes missing from the free space the recording should have ahead of it in its folder:
    /// four seconds of what it writes, and at least 1 MiB; 0 when there is enough.
    private func spaceShortfall() -> Int64 {
        var status = statvfs()
        let folder = plan.template.directory.isEmpty ? "." : plan.template.directory
        guard statvfs(folder, &status) == 0 else { return 0 }
        let free = Int64(status.f_bavail) * Int64(status.f_frsize)
        let seconds = Double(max(current.end, 1)) / 1e6
        let rate = Double(bytesWritten) / seconds
        let reserve = max(Int64(1 << 20), Int64(rate * 4))
        return max(0, reserve - free)
    }

    private static func writeError(_ error: FFmpegError, path: String) -> CaptureError {
        .writeFailed(error, subject: path, kept: "the segment")
    }

    private static func seconds(_ microseconds: Int64) -> Double { (Double(microseconds) / 1000).rounded() / 1000 }
}
