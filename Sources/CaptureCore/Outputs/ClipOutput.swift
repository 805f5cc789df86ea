import Dispatch
import FoundationEssentials
import Glibc

/// Event clips (`ClipPlan`) as one of the recording's outputs: every encoded packet goes into the
/// pre-roll (`ClipRing`); a trigger opens a clip, a complete file of its own that starts with the
/// ring's oldest keyframe, and every packet goes into it as well until `postRoll` seconds after
/// the last trigger (with a toggle, until the next trigger; at most `maxClip`).
///
/// A clip is a segment of the recording (`SeriesFileWriter`, as a segment is): its own times start at 0 with
/// its first keyframe, its audio with the first packet at or after it (within one audio frame), an
/// MP4's AAC or Opus primed by the packets before (`SegmentPriming`); it is locked while written,
/// finished (trailer, an MP4's index moved to the front) on a thread of its own, and reported as
/// `clip_closed`. Video ends by decoding order, so every frame written has what it refers to. A
/// write that fails (a full disk) ends the clip, said once; the ring runs on for the next one.
///
/// Threads: everything but the finishing runs on the recording loop's thread; the finishers share
/// only `lock`'s state.
final class ClipOutput: @unchecked Sendable {
    let plan: ClipPlan
    let formatName: String
    let options: [String: String]
    let replacing: Bool
    var sources: [StreamSource] = []
    var videoStreams: Set<Int> = []
    /// Per AAC or Opus stream of an MP4 or MOV, the samples its priming holds.
    var prerolls: [Int: Int] = [:]
    /// Streams of raw PCM, cut at the very sample where a clip starts and ends.
    var pcmStreams: Set<Int> = []
    /// The next clip's container with every stream, no file yet; its time bases time the packets.
    private var next: SeriesFileWriter
    /// The clip being written, its priming, and why it will close.
    var clip: SeriesFileWriter?
    var priming = SegmentPriming()
    /// Where the clip ends on the recording's clock (microseconds): `postRoll` after the last
    /// trigger, `maxClip` after its start; nil while a toggled clip runs.
    var clipEnd: Int64?
    var clipLimit: Int64?
    var closeReason = "post-roll"
    /// The kinds of stream that have reached the clip's end.
    private var videoPastEnd = false
    private var audioPastEnd = false
    /// Where the video written ends (microseconds), and the audio past the clip's end held until
    /// that is known.
    private var videoEnd: Int64 = 0
    private var heldAudio: [(packet: Packet, stream: Int, time: Int64)] = []
    /// A trigger (why, when) that came before the ring had a place to start a clip: the clip
    /// opens at the first.
    private var pendingOpen: (reason: String, time: Int64)?
    var ring: ClipRing?
    private(set) var opened = 0
    /// What the ring held at the end, for the summary.
    var preRollHeld: PreRollReport?
    /// Per video stream, where its next keyframe is due (microseconds on the recording's clock).
    var nextKeyframes: [Int: Int64] = [:]
    private(set) var started = false
    var warnings: [String] = []
    private var warnedRing = false
    var warnedWrite = false

    let sweeper: SegmentSweeper
    let lock = Condition()
    let finishers = DispatchGroup()
    // Under `lock`.
    var events: [RecordingEvent] = []
    var finishedPaths: [String] = []
    /// The number of each clip finished, by its path: a deleted clip's event gives it.
    var finishedNumbers: [String: Int] = [:]
    var finishedBytes: Int64 = 0
    var inFlight: Set<String> = []
    var closedOrder = StartOrder<RecordingEvent>()
    var closedAll = false

    /// Prepares the first clip's muxer; no file is created until a trigger.
    init(plan: ClipPlan, formatName: String, options: [String: String], replacing: Bool) throws(FFmpegError) {
        self.plan = plan
        self.formatName = formatName
        self.options = options
        self.replacing = replacing
        sweeper = SegmentSweeper(plan: plan.series)
        next = SeriesFileWriter(
            number: 1, container: try OutputContainer(name: plan.template.pattern, formatName: formatName))
    }

    var wantsGlobalHeader: Bool { next.container.wantsGlobalHeader }
    var hasVideo: Bool { !videoStreams.isEmpty }
    var hasAudio: Bool { videoStreams.count < sources.count }

    /// Bytes of every clip this run wrote, the open one's so far included.
    var bytesWritten: Int64 {
        lock.withLock { finishedBytes } + (closedAll ? 0 : clip?.container.bytesWritten ?? 0)
    }

    /// Adds a stream to the next clip, and to every later one when it is prepared.
    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int {
        sources.append(source)
        let index = sources.count - 1
        if case .encoder(let encoder) = source.feed {
            if encoder.name.hasPrefix("pcm_") { pcmStreams.insert(index) }
            if FastStartRewrite.muxers.contains(formatName) && encoder.decoderPreroll > 0 {
                prerolls[index] = encoder.decoderPreroll
            }
        }
        // Every clip starts within the recording: a primed stream carries its priming, no other.
        let added = try next.container.addStream(source, priming: prerolls[index] ?? 0)
        if next.container.isVideo(added) { videoStreams.insert(added) }
        return added
    }

    /// Takes a packet (encoder ticks on the recording's clock): into the ring, and into the clip
    /// being written.
    ///
    /// - Throws: `.outputExists`, `.cannotCreate` when a clip's file cannot be made; `.failed` when
    ///   FFmpeg cannot reference the packet (out of memory). A clip's failed write ends only it.
    func write(_ packet: Packet, stream: Int) throws(CaptureError) {
        started = true
        let isVideo = videoStreams.contains(stream)
        let ticks = packet.pts ?? packet.dts ?? 0
        let time = next.container.microseconds(ofTicks: ticks, stream: stream)
        let decodeTime = next.container.microseconds(ofTicks: packet.dts ?? ticks, stream: stream)
        if ring == nil { ring = ClipRing(seconds: plan.preRoll, maxBytes: plan.preRollBytes, hasVideo: hasVideo) }
        let kept = try media("keeping the pre-roll") { () throws(FFmpegError) in try Packet(referencing: packet) }
        ring!.add(
            .init(
                packet: kept, stream: stream, time: time, decodeTime: decodeTime, isVideo: isVideo,
                isKeyframe: packet.isKeyframe))
        if ring!.overflowed && !warnedRing {
            warnedRing = true
            warnings.append(
                "\(plan.template.pattern): the pre-roll holds only \(String(cFormat: "%.1f", ring!.seconds)) s of the "
                    + "\(DurationValue.text(plan.preRoll)) asked: its packets reach its size limit "
                    + "(\(plan.preRollBytes) bytes); raise the limit, or lower the bit rate or frame size")
        }
        if let pending = pendingOpen, ring!.canStart {
            pendingOpen = nil
            try open(reason: pending.reason, trigger: pending.time)
            return
        }
        guard let clip else { return }
        feed(packet, stream: stream, time: time, decodeTime: decodeTime, isVideo: isVideo, into: clip)
    }

    /// Writes a live packet into the open clip, or notes that its stream has passed the clip's end
    /// and closes the clip once every kind of stream has.
    ///
    /// Video ends by decoding order (a frame written has every frame it refers to written before
    /// it), so its last frames may show a little past the end; the audio runs on to where the
    /// video written ends, held until that is known (the encoder hands the video over later than
    /// the audio of the same moment).
    private func feed(
        _ packet: Packet, stream: Int, time: Int64, decodeTime: Int64, isVideo: Bool, into clip: SeriesFileWriter
    ) {
        let end = min(clipEnd ?? .max, clipLimit ?? .max)
        if clipLimit.map({ end == $0 && end != clipEnd }) == true { closeReason = "max-clip" }
        let audioEnd = hasVideo ? (videoPastEnd ? max(end, videoEnd) : nil) : end
        // Raw PCM across the start or the end is cut on the very sample.
        let cut = time < clip.start ? clip.start : audioEnd.flatMap { $0 < .max ? $0 : nil }
        if !isVideo, pcmStreams.contains(stream), let cut, cut > time,
            let tail = cutPCM(packet, stream: stream, time: time, at: cut)
        {
            if cut != clip.start { put(packet, stream: stream, time: time, into: clip) }
            return feed(tail, stream: stream, time: cut, decodeTime: cut, isVideo: false, into: clip)
        }
        if isVideo {
            guard decodeTime < end else { return videoPassedEnd(clip) }
            put(packet, stream: stream, time: time, into: clip)
            let length = next.container.microseconds(ofTicks: max(1, packet.duration), stream: stream)
            videoEnd = max(videoEnd, time + length)
            return
        }
        guard time >= clip.start else { return }
        if let audioEnd {
            guard time < audioEnd else {
                audioPastEnd = true
                return closeIfDone()
            }
            return put(packet, stream: stream, time: time, into: clip)
        }
        if time < end { return put(packet, stream: stream, time: time, into: clip) }
        // Past the end before the video: held until the video's end is known, for two seconds
        // at most (a camera that stopped delivering).
        if time - end > 2_000_000 {
            audioPastEnd = true
            return closeIfDone()
        }
        if let copy = try? Packet(referencing: packet) { heldAudio.append((copy, stream, time)) }
    }

    /// The first video packet past the clip's end: the audio held meanwhile goes in up to where
    /// the video written ends.
    private func videoPassedEnd(_ clip: SeriesFileWriter) {
        guard !videoPastEnd else { return closeIfDone() }
        videoPastEnd = true
        let held = heldAudio
        heldAudio = []
        for (packet, stream, time) in held where self.clip === clip {
            feed(packet, stream: stream, time: time, decodeTime: time, isVideo: false, into: clip)
        }
        closeIfDone()
    }

    /// Closes the clip once every kind of stream has passed its end.
    private func closeIfDone() {
        if clip != nil && (videoPastEnd || !hasVideo) && (audioPastEnd || !hasAudio) { closeClip() }
    }

    /// Microseconds a ring entry's packet lasts.
    private func duration(of entry: ClipRing.Entry) -> Int64 {
        next.container.microseconds(ofTicks: max(0, entry.packet.duration), stream: entry.stream)
    }

    /// Cuts a PCM packet that starts at `time` at `cut` (microseconds) when it runs across it:
    /// the packet keeps the head, the tail is returned; nil when it does not run across.
    private func cutPCM(_ packet: Packet, stream: Int, time: Int64, at cut: Int64) -> Packet? {
        let container = next.container
        let ticks = container.ticks(ofMicroseconds: cut, stream: stream) - (packet.pts ?? 0)
        return (try? packet.splitPCM(at: ticks)) ?? nil
    }

    /// A trigger at `time` (microseconds on the recording's clock): opens a clip, extends the one
    /// being written, or with a toggle ends it.
    ///
    /// - Throws: `.outputExists`, `.cannotCreate` when the clip's file cannot be made.
    func trigger(at time: Int64, reason: String) throws(CaptureError) {
        lock.withLock {
            events.append(RecordingEvent(event: .trigger, start: SegmentedOutput.seconds(max(0, time)), reason: reason))
        }
        if clip != nil, !videoPastEnd, !audioPastEnd {
            guard let postRoll = plan.postRoll else {
                clipEnd = time
                closeReason = "trigger"
                return
            }
            clipEnd = max(clipEnd ?? time, time + Int64((postRoll * 1e6).rounded()))
            // Audio held past the old end goes in now, in order, before the next packet.
            let held = heldAudio
            heldAudio = []
            if let open = clip {
                for (packet, stream, time) in held where clip === open {
                    feed(packet, stream: stream, time: time, decodeTime: time, isVideo: false, into: open)
                }
            }
            return
        }
        // A clip whose streams are passing its end is done: the new one has its own pre-roll.
        if clip != nil { closeClip() }
        guard ring?.canStart == true else {
            pendingOpen = (reason, time)
            return
        }
        try open(reason: reason, trigger: time)
    }

    /// Opens a clip at the ring's oldest keyframe, writes the ring into it, and sets its end from
    /// the trigger's time.
    private func open(reason: String, trigger: Int64) throws(CaptureError) {
        guard let ring, let start = ring.start(for: trigger) else { return }
        let held = ring.held(from: start)
        let segment = next
        opened += 1
        try create(segment, at: start, reason: reason)
        clip = segment
        next = try media("preparing the next clip") { () throws(FFmpegError) in
            let container = try OutputContainer(name: plan.template.pattern, formatName: formatName)
            for (index, source) in sources.enumerated() {
                _ = try container.addStream(source, priming: prerolls[index] ?? 0)
            }
            return SeriesFileWriter(number: opened + 1, container: container)
        }
        closeReason = plan.postRoll == nil ? "stop" : "post-roll"
        (videoPastEnd, audioPastEnd, videoEnd, heldAudio) = (false, false, 0, [])
        clipEnd = plan.postRoll.map { trigger + Int64(($0 * 1e6).rounded()) }
        clipLimit = plan.maxClip.map { start + Int64(($0 * 1e6).rounded()) }
        // The priming of a primed stream: the ring's packets before the clip's first of it.
        priming = SegmentPriming()
        priming.prerolls = prerolls
        for entry in held where !entry.isVideo && entry.time < start && priming.primes(entry.stream) {
            try priming.remember(entry.packet, stream: entry.stream)
        }
        for entry in held {
            // A PCM packet across the start is cut there (`feed`); others start on it or after.
            let reaches = pcmStreams.contains(entry.stream) && entry.time + duration(of: entry) > start
            guard let clip, entry.isVideo || entry.time >= start || reaches else { continue }
            let copy = try media("writing the pre-roll") { () throws(FFmpegError) in
                try Packet(referencing: entry.packet)
            }
            feed(
                copy, stream: entry.stream, time: entry.time, decodeTime: entry.decodeTime, isVideo: entry.isVideo,
                into: clip)
        }
    }
}
