import FoundationEssentials
import Glibc

/// A clip's file: made, written, finished and kept by the retention policy.
extension ClipOutput {
    /// Writes its header to the clip's file, named from the template now, starting at `time`.
    /// A name this recording gave before, or (without replacing) one that exists, is never
    /// written again: the clip takes the name with `-2`, `-3` ... before its extension, so that
    /// a template whose names repeat (`%H`, two clips in one hour) loses no clip.
    func create(_ segment: SeriesFileWriter, at time: Int64, reason: String) throws(CaptureError) {
        let named = plan.template.path(number: segment.number, date: Date())
        let taken = lock.withLock { Set(finishedPaths).union(inFlight) }
        let candidates = [named] + (2...999).map { Self.suffixed(named, $0) }
        guard
            let path = candidates.first(where: {
                !taken.contains($0) && (replacing && $0 == named || access($0, F_OK) != 0)
            })
        else {
            throw .cannotCreate(
                path: named, reason: "999 clips of this recording have this name; add %n to the template")
        }
        let origins = sources.indices.map { stream in
            videoStreams.contains(stream) ? segment.container.ticks(ofMicroseconds: time, stream: stream) : nil
        }
        try segment.create(
            path: path, at: time, origins: origins, options: options, replacing: replacing, formatName: formatName)
        lock.withLock {
            events.append(
                RecordingEvent(
                    event: .clipOpened, path: path, number: segment.number, start: SegmentedOutput.seconds(time),
                    reason: reason))
        }
    }

    /// `path` with `-N` before its extension.
    static func suffixed(_ path: String, _ number: Int) -> String {
        let name = path.pathLastComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(path)-\(number)" }
        let folder = path.dropLast(name.count)
        return "\(folder)\(name[..<dot])-\(number)\(name[dot...])"
    }

    /// Writes a packet that starts at `time` into the clip, on the clip's own times. A write that
    /// fails ends the clip, said once.
    func put(_ packet: Packet, stream: Int, time: Int64, into segment: SeriesFileWriter) {
        do throws(CaptureError) {
            try segment.put(
                packet, stream: stream, time: time, isVideo: videoStreams.contains(stream), priming: &priming,
                remembering: false, kept: "the clip")
        } catch {
            // The recording goes on, and so does the ring: the next trigger starts a new clip.
            if !warnedWrite {
                warnedWrite = true
                warnings.append("\(error); the clip ends there, and the next trigger starts a new one")
            }
            closeReason = "write failed"
            closeClip()
        }
    }

    /// Pushes what the open clip's muxer buffers to disk; a failure ends the clip.
    func flushClip() {
        guard let clip else { return }
        do throws(FFmpegError) { try clip.container.flush() } catch {
            if !warnedWrite {
                warnedWrite = true
                warnings.append(
                    "\(CaptureError.writeFailed(error, subject: clip.path, kept: "the clip")); the clip ends there, "
                        + "and the next trigger starts a new one")
            }
            closeReason = "write failed"
            closeClip()
        }
    }

    /// Hands the open clip to a thread of its own to be finished.
    func closeClip() {
        guard let segment = clip else { return }
        clip = nil
        clipEnd = nil
        clipLimit = nil
        let reason = closeReason
        let ticket = lock.withLock {
            inFlight.insert(segment.path)
            return closedOrder.start()
        }
        finishers.enter()
        let (format, hasVideo, hasAudio) = (formatName, hasVideo, hasAudio)
        DetachedThread.start(name: "capture clip") { [self] in
            let event = Self.closed(segment, formatName: format, hasVideo: hasVideo, hasAudio: hasAudio, reason: reason)
            lock.withLock {
                record(event, ticket: ticket)
                inFlight.remove(segment.path)
            }
            finishers.leave()
        }
    }

    /// Finishes `segment` (trailer, fast start) and unlocks it: its `clip_closed` event. A clip
    /// the disk had no room for (empty, or failed with not one packet on disk: what went to the
    /// muxer may not have reached it) holds nothing a player opens, and is removed.
    private static func closed(
        _ segment: SeriesFileWriter, formatName: String, hasVideo: Bool, hasAudio: Bool, reason: String
    ) -> RecordingEvent {
        var event = segment.finish(formatName: formatName, hasVideo: hasVideo, hasAudio: hasAudio)
        if event.size == 0 || (event.problem != nil && !readsBack(segment.path)) {
            unlink(segment.path)
            event.size = 0
            event.problem = (event.problem.map { $0 + "; " } ?? "") + "removed, as it holds nothing"
        }
        segment.unlock()
        event.event = .clipClosed
        event.reason = reason
        return event
    }

    /// True when the file at `path` reads back with at least one packet.
    private static func readsBack(_ path: String) -> Bool {
        guard let input = try? InputContainer(url: "file:" + path, format: nil), let packet = try? Packet() else {
            return false
        }
        return (try? input.read(into: packet)) == true
    }

    /// Notes a closed clip; under `lock`.
    private func record(_ event: RecordingEvent, ticket: Int) {
        events += closedOrder.finish(ticket, event)
        guard let path = event.path, event.size ?? 0 > 0 else { return }
        finishedPaths.append(path)
        finishedNumbers[path] = event.number
        finishedBytes += event.size ?? 0
    }

    /// Finishes the clip being written (on the caller's thread) and waits for those being
    /// finished; lets go of the ring.
    ///
    /// - Returns: the first error, if finishing one failed.
    func finishClips() -> CaptureError? {
        finishers.wait()
        preRollHeld = ring.map { .init(seconds: ($0.seconds * 1000).rounded() / 1000, bytes: $0.bytes) }
        ring?.removeAll()
        var failure: CaptureError?
        if let segment = clip {
            clip = nil
            let event = Self.closed(
                segment, formatName: formatName, hasVideo: hasVideo, hasAudio: hasAudio, reason: "stop")
            if let problem = event.problem { failure = .io(subject: segment.path, reason: problem) }
            lock.withLock { record(event, ticket: closedOrder.start()) }
        }
        closedAll = true
        return failure
    }

    /// What happened since the last call, in order; deletes what the retention policy no longer
    /// keeps once a clip is closed, and reports those too.
    func takeEvents() -> [RecordingEvent] {
        var taken = lock.withLock {
            defer { events = [] }
            return events
        }
        guard !plan.retention.isEmpty, taken.contains(where: { $0.event == .clipClosed }) else { return taken }
        let (written, busy) = lock.withLock { (finishedPaths, inFlight) }
        let open = closedAll ? nil : clip?.path
        let deleted = sweeper.sweep(
            written: written, busy: busy, open: open, openBytes: open == nil ? 0 : clip?.container.bytesWritten ?? 0,
            closed: true, shortBy: 0)
        for (path, bytes) in deleted {
            let number = lock.withLock { finishedNumbers[path] }
            taken.append(RecordingEvent(event: .segmentDeleted, path: path, number: number, size: bytes))
        }
        return taken
    }

    /// Lines for the user since the last call.
    func takeWarnings() -> [String] {
        defer { warnings = [] }
        return warnings
    }
}

/// Event clips as one of the recording's outputs: they carry the recording (a trigger's clip is
/// where it lives), and report their files as events.
extension ClipOutput: RecordingOutput {
    var name: String { plan.template.pattern }
    var carriesRecording: Bool { true }

    func flush() throws(CaptureError) { flushClip() }

    func takeNews() -> (events: [RecordingEvent], warnings: [String]) { (takeEvents(), takeWarnings()) }

    /// A keyframe at every whole second of the recording's clock, whatever frames were dropped:
    /// a clip then starts at most a second before its pre-roll.
    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool {
        guard time >= nextKeyframes[stream] ?? 0 else { return false }
        nextKeyframes[stream] = (time / 1_000_000 + 1) * 1_000_000
        return true
    }

    /// Finishes the clip still open and waits for those being finished.
    func finish(_ recorded: RecordedStreams) -> OutputReport {
        let failure = finishClips()
        var report = OutputReport(name: name, bytes: bytesWritten, failure: failure)
        report.clips = opened
        report.preRoll = preRollHeld
        return report
    }

    func close(timeout: Double) {
        clip?.container.abandon()
        clip?.unlock()
    }
}
