import FoundationEssentials
import Glibc

/// The loop of one recording: starts the readers, waits until every device delivers, then takes
/// packets in time order and hands each to its track, until the `StopPolicy` ends it, a device
/// ends or stalls, or writing fails; then finalizes the file.
struct RecordingLoop {
    let session: RecordingSession
    /// The microphones' packets from the cameras' last frame interval before their end on, held
    /// until every camera is done: only then is it known where the video ends, and so where the
    /// audio must. A loop behind the cameras takes the audio first, which would otherwise run on
    /// to the provisional end, up to a frame past the video's.
    private let tail = AudioTail()

    final class AudioTail {
        var packets: [(lane: Int, item: QueuedPacket)] = []
    }

    /// How long after the readers start (microseconds) a late device may hold back the start.
    static let lateStartAllowance: Int64 = 300_000

    func run() throws(CaptureError) -> RecordingOutcome {
        let s = session
        for track in s.tracks { track.reader.start() }
        guard let start = try waitForDevices() else { return s.stoppedBeforeFirstFrame }
        let t0 = start.t0
        s.stop.keepReadingOnStop()
        setEnds()
        var policy = StopPolicy(t0: t0, duration: s.plan.duration)
        var went = pump(t0: t0, readersStarted: start.readersStarted, policy: &policy)
        if went.failure == nil && !policy.stopping, let reason = reasonOfOwnEnd(ended: went.ended) {
            policy.reason = reason
        }
        // Stop the readers, write what they captured before the end and the loop had not taken
        // yet (a loop behind the devices holds seconds of it), then finalize. Frames the queue
        // dropped after the last one taken still count, if they fall within the recording. The
        // audio follows the video's end once no more video can come; a camera with frames still
        // queued has not reached its end yet, and cutting the audio at its last frame taken would
        // lose the seconds a loop behind a slow encoder has yet to write (a 10 s recording kept
        // 7.5 s of sound).
        let cameras = s.tracks.cameras
        if !cameras.isEmpty && cameras.allSatisfy({ $0.finished(went.ended) }) { alignAudioEnd() }
        s.stop.interrupt.raise()
        if !went.writeFailed {
            do {
                try drain(t0: t0, policy: &policy)
                // A camera that never reached its end (a stop it sent nothing after, a lost one):
                // the audio follows where its last frame ends.
                alignAudioEnd()
                try releaseTail(t0: t0)
            } catch {
                if went.failure == nil { went.failure = error }
            }
        }
        s.queue.close()
        for camera in cameras {
            camera.video?.noteDropped(times: s.queue.takeDropped(lane: camera.lane).map { $0 - t0 })
        }
        let result = try s.finalize(
            failure: went.failure, stopReason: went.failure == nil ? policy.reason : .error, startOffset: start.offset)
        return .recorded(result)
    }

    /// Sets where the streams end for a recording with a duration. With cameras, the audio ends
    /// where their last frames end, set once the video is done; until then it may run one frame
    /// past the duration at most. (A camera the encoder cannot keep up with sends its last frames
    /// late or has them dropped, and the audio, taken meanwhile, ran on a third of a second.)
    private func setEnds() {
        let s = session
        guard let duration = s.plan.duration else { return }
        let end = Int64(duration * 1e6)
        s.outputs.recordingEnds(at: end)
        let cameras = s.tracks.compactMap(\.video)
        for camera in cameras { camera.endTime = end }
        let slot = cameras.map { Rescale.microseconds(ofSlot: 1, rate: $0.rate) }.max() ?? 0
        for microphone in s.tracks.compactMap(\.audio) { microphone.endTime = end + slot }
    }

    /// How the packets went: the error that ended them, whether it was a failed write (nothing
    /// more can go into the outputs), and the lanes whose readers ended.
    private struct Run {
        var failure: CaptureError?
        var writeFailed = false
        var ended = Set<Int>()
    }

    /// Takes packets and does the housekeeping between them until the policy ends the recording,
    /// every stream is done, or something fails.
    private func pump(t0: Int64, readersStarted: Int64, policy: inout StopPolicy) -> Run {
        let s = session
        let watch = StallWatch(
            limit: Int64(s.plan.stallTimeout * 1e6), startedAt: readersStarted, loopStart: SessionClock.now())
        // Twice a second, with the muxer options' half-second fragments: after kill -9 at 5 s,
        // 4 s must decode although start-up and the encoder's delay take their share too.
        var flush = Cadence(every: 500_000)
        var progress = ProgressMeter(t0: t0, duration: s.plan.duration)
        var run = Run()
        while run.failure == nil {
            let now = SessionClock.now()
            if policy.shouldEnd(now: now, stop: s.stop, queue: s.queue, tracks: s.tracks, endedLanes: run.ended)
                || s.tracks.allSatisfy({ $0.finished(run.ended) })
            {
                break
            }
            switch s.queue.next(timeout: 0.1) {
            case .packet(let lane, let item):
                do { try take(item, lane: lane, t0: t0, policy: &policy) } catch {
                    run.failure = error
                    run.writeFailed = true
                }
            case .ended(let lane, let error):
                run.ended.insert(lane)
                if let error, !policy.stopping { run.failure = error }
            case .idle:
                break
            }
            guard run.failure == nil else { break }
            do throws(LoopEnd) {
                try housekeeping(
                    now: SessionClock.now(), t0: t0, stalls: policy.stopping ? nil : watch, ended: run.ended,
                    flush: &flush, progress: &progress)
            } catch {
                run.failure = error.error
                run.writeFailed = error.writing
            }
        }
        return run
    }

    /// Why the inputs ended by themselves, with no stop asked: at the limit the request set
    /// (frames, duration); nil when they ended before it.
    private func reasonOfOwnEnd(ended: Set<Int>) -> StopReason? {
        let s = session
        let cameras = s.tracks.cameras
        if s.plan.frameLimit != nil && !cameras.isEmpty && cameras.allSatisfy({ $0.path.done }) { return .frames }
        if s.plan.duration != nil && s.tracks.allSatisfy({ $0.path.done }) && ended.count < s.tracks.count {
            return .duration
        }
        return nil
    }

    /// What ends a recording from between packets; `writing`: writing failed, so nothing more can
    /// go into the outputs.
    struct LoopEnd: Error {
        let error: CaptureError
        var writing = false
    }

    /// Takes what the queue still holds once the readers were told to stop, in time order, until
    /// it is empty: every packet captured before the end is written, however far behind the
    /// loop ran. The readers add a last packet at most, so this ends.
    private func drain(t0: Int64, policy: inout StopPolicy) throws(CaptureError) {
        while true {
            switch session.queue.next(timeout: 0.05) {
            case .packet(let lane, let item): try take(item, lane: lane, t0: t0, policy: &policy)
            case .ended: continue
            case .idle: return
            }
        }
    }

    /// Between packets: a stalled device ends the recording, the file is flushed twice a second,
    /// the progress line is fed four times a second.
    ///
    /// - Throws: what ends the recording, if anything.
    private func housekeeping(
        now: Int64, t0: Int64, stalls: StallWatch?, ended: Set<Int>, flush: inout Cadence,
        progress: inout ProgressMeter
    ) throws(LoopEnd) {
        let s = session
        reportLinks()
        s.reportLevels()
        do { try s.passTriggers(now: now - t0) } catch { throw LoopEnd(error: error) }
        do {
            try fillLostMicrophones(now: now, t0: t0, ended: ended)
            try s.endChangedModes()
        } catch {
            throw LoopEnd(error: error, writing: true)
        }
        if let stalled = stalls?.stalled(now: now, queue: s.queue, tracks: s.tracks, endedLanes: ended) {
            // With --reconnect, a stalled device is let go of and waited for, as a lost one is.
            // A camera whose reads kept failing (`ReadRetry`) sent no data: the message says why.
            let reader = s.reader(lane: stalled.lane)
            let failing = stalled.lacking == "no data" ? reader?.failingReads : nil
            let lacking = failing?.lacking ?? stalled.lacking
            let reason = "\(lacking) for \(DurationValue.text(s.plan.stallTimeout)) s; the device stalled"
            if reader?.freeStalled(reason: reason) != true {
                throw LoopEnd(
                    error: StallWatch.error(
                        device: stalled.device, lacking: lacking, timeout: s.plan.stallTimeout, fileWritten: s.started))
            }
        }
        for track in s.tracks {
            if let overdue = track.reader.overdue(now: now) { throw LoopEnd(error: overdue) }
        }
        if flush.due(now) {
            do { try s.outputs.flush() } catch { throw LoopEnd(error: error, writing: true) }
            if let lost = s.reportOutputs() { throw LoopEnd(error: lost) }
        }
        if s.onProgress != nil || s.preview != nil,
            let snapshot = progress.tick(
                now: now, cameras: s.tracks.flatMap(\.videoModes), microphones: s.tracks.compactMap(\.audio),
                bytes: s.bytesWritten)
        {
            s.onProgress?(snapshot)
            s.publishProgress(snapshot)
        }
    }

    /// Writes silence for each lost microphone, kept behind the clock by what a device may still
    /// deliver late once it is back, and behind the cameras' frames the loop has taken: a loop
    /// seconds behind a delivering camera writes its frames late, and silence ahead of them
    /// crossed a segment's boundary twice before the video reached the first (a 2 s segment held
    /// 3.5 s of video).
    private func fillLostMicrophones(now: Int64, t0: Int64, ended: Set<Int>) throws(CaptureError) {
        let s = session
        let lost = s.tracks.microphones.filter {
            !ended.contains($0.lane) && $0.reader.link.waiting && s.queue.waiting(lane: $0.lane) == 0
        }
        guard !lost.isEmpty else { return }
        let taken = s.tracks.cameras.compactMap { (camera) -> Int64? in
            guard let video = camera.video, !video.done, !ended.contains(camera.lane), !camera.reader.link.waiting
            else { return nil }
            return video.lastJudgedTime
        }
        let until = ([now - t0 - Self.silenceLag] + taken).min()!
        for microphone in lost {
            try microphone.audio?.fillSilence(until: until) { (packet, stream) throws(CaptureError) in
                try s.mux(packet, stream: stream)
            }
        }
    }

    /// Says when a device was lost and when it came back (`DeviceLink`), and when a camera whose
    /// reads failed for a while reads again (`ReadRetry`). A camera's return is told once its
    /// first frame after it was placed, with the frame slots the gap left empty.
    private func reportLinks() {
        let s = session
        for track in s.tracks {
            let reader = track.reader
            let video = track.video
            // The controls set are the first camera's.
            let controlled = track.source.device == s.plan.video?.device
            for run in reader.takeRecoveredReads() { s.onWarning(run.recovered(device: reader.name)) }
            for event in reader.link.takeEvents() {
                switch event {
                case .lost(let reason):
                    s.linkReports.gapsAtLoss[reader.lane] = video?.tally.gaps ?? 0
                    if controlled { s.releaseControls() }
                    s.onWarning("\(reader.name): the device was lost (\(reason)); waiting for it to come back")
                    s.onEvent?(RecordingEvent(event: .deviceLost, device: reader.name, reason: reason))
                case .back(let seconds):
                    if controlled { s.reapplyControls() }
                    if let video {
                        s.linkReports.pendingBack[reader.lane] = (seconds, video.written)
                    } else {
                        s.onWarning(
                            "\(reader.name) is back after \(String(cFormat: "%.1f", seconds)) s; the gap is silence")
                        s.onEvent?(
                            RecordingEvent(event: .deviceBack, device: reader.name, secondsAway: Self.rounded(seconds)))
                    }
                }
            }
        }
        for camera in s.tracks.cameras {
            guard let video = camera.video, let (seconds, written) = s.linkReports.pendingBack[camera.lane],
                video.written > written || video.done
            else { continue }
            s.linkReports.pendingBack[camera.lane] = nil
            let missing = video.tally.gaps - (s.linkReports.gapsAtLoss[camera.lane] ?? 0)
            s.linkReports.missingWhileAway[camera.lane, default: 0] += missing
            let name = camera.reader.name
            let frames = missing == 1 ? "1 frame" : "\(missing) frames"
            s.onWarning("\(name) is back after \(String(cFormat: "%.1f", seconds)) s; \(frames) missing")
            s.onEvent?(
                RecordingEvent(
                    event: .deviceBack, device: name, secondsAway: Self.rounded(seconds), framesMissing: missing))
        }
    }

    /// Tells, once a camera, that the recorder has been dropping its frames for a second: what
    /// share so far, and what would let it keep up.
    private func warnBehind(_ video: VideoPath, track: Track) {
        video.fellBehind = false
        let share = Double(video.tally.late) * 100 / Double(max(1, video.written + video.tally.late))
        let planned = session.plan.videos.first { $0.device == track.source.device }
        let advice = LagWarning.advice(
            preset: video.decodes ? track.encoderBudget?.preset ?? planned?.x264Options["preset"] : nil,
            inputCodec: track.input.codec)
        session.onWarning(
            "\(track.device): the recorder falls behind the camera (\(String(cFormat: "%.0f", share)) % of its frames "
                + "dropped so far): \(video.width)x\(video.height) at \(video.rate) fps is more than the encoder keeps "
                + "up with here; \(advice)")
    }

    /// Microseconds the silence of a lost microphone stays behind the session clock.
    static let silenceLag: Int64 = 300_000

    /// Hands a packet to its track.
    private func take(_ item: QueuedPacket, lane: Int, t0: Int64, policy: inout StopPolicy) throws(CaptureError) {
        guard let track = session.tracks.track(lane: lane) else { return }
        if item.generation != track.generation { try session.followSource(track, generation: item.generation) }
        let time = item.time - t0
        switch track.chain {
        case .video(let video):
            video.noteDropped(times: session.queue.takeDropped(lane: lane).map { $0 - t0 }, before: item.arrival)
            if video.fellBehind { warnBehind(video, track: track) }
            try video.process(item.packet, time: time, arrival: item.arrival, mux: mux)
            // Most frames end here: the cameras are gone through only once this one is done.
            guard video.done else { return }
            let cameras = session.tracks.compactMap(\.video)
            guard cameras.allSatisfy(\.done) else { return }
            if let frames = session.plan.frameLimit, cameras.allSatisfy({ $0.written >= frames }) {
                policy.reason = .frames
            }
            alignAudioEnd()
            try releaseTail(t0: t0)
        case .audio(let audio):
            // Held once it reaches a camera's last frame interval while that camera runs on.
            let holdFrom = session.tracks.lazy.compactMap(\.video).filter { !$0.done }
                .compactMap { camera in camera.endTime.map { $0 - Rescale.microseconds(ofSlot: 1, rate: camera.rate) } }
                .min()
            if let holdFrom, !tail.packets.isEmpty || time >= holdFrom {
                tail.packets.append((lane, item))
                return
            }
            audio.lastLoss = track.reader.link.lastLostAt.map { $0 - t0 }
            try audio.process(item.packet, time: time, arrival: item.arrival, mux: mux)
        }
    }

    /// Gives a packet to every output.
    private var mux: EncodedStream.Mux {
        { [session] (packet, stream) throws(CaptureError) in try session.mux(packet, stream: stream) }
    }

    /// Records the microphones' packets held until the cameras were done (`tail`), in order.
    private func releaseTail(t0: Int64) throws(CaptureError) {
        guard !tail.packets.isEmpty else { return }
        let packets = tail.packets
        tail.packets.removeAll()
        for (lane, item) in packets {
            guard let track = session.tracks.track(lane: lane), let audio = track.audio else { continue }
            audio.lastLoss = track.reader.link.lastLostAt.map { $0 - t0 }
            try audio.process(item.packet, time: item.time - t0, arrival: item.arrival, mux: mux)
        }
    }

    /// When the recording starts: once every device delivers. A camera streams from the moment it
    /// is opened, so its first buffers predate a microphone opened after it; what came earlier is
    /// skipped, and the devices' own start offset is measured and reported. A device whose first
    /// data comes late (a sound server's first fragment, up to its old latency after it was
    /// opened) holds the start back by `lateStartAllowance` at most: the others' frames are kept,
    /// and its stream starts later in the file, in step.
    ///
    /// - Returns: the start (`t0`) on the session clock, when the readers started, and the
    ///   microphone's first sample minus the camera's first frame in seconds; nil when a stop came
    ///   before any device delivered.
    /// - Throws: the error that ended a reader, or a stall when nothing came within the timeout.
    private func waitForDevices() throws(CaptureError) -> (t0: Int64, readersStarted: Int64, offset: Double?)? {
        let s = session
        let startedAt = SessionClock.now()
        let firstTimes = s.queue.firstTimes(until: startedAt + Int64(s.plan.stallTimeout * 1e6))
        var offset: Double?
        if let v = s.tracks.cameras.first.flatMap({ firstTimes[$0.lane] }),
            let a = s.tracks.microphones.first.flatMap({ firstTimes[$0.lane] })
        {
            offset = Double(a - v) / 1e6
        }
        guard let latest = firstTimes.compactMap({ $0 }).max() else {
            if case .ended(_, let error?) = s.queue.next(timeout: 0) { throw error }
            if s.stop.isRequested { return nil }
            throw .io(
                subject: s.tracks.map(\.device).joined(separator: ", "),
                reason: "no data within \(DurationValue.text(s.plan.stallTimeout)) s; the device stalled")
        }
        let earliest = firstTimes.compactMap { $0 }.min() ?? latest
        return (min(latest, max(earliest, startedAt + Self.lateStartAllowance)), startedAt, offset)
    }

    /// Ends the audio where the video ends, for every stop reason: the end of the cameras' last
    /// frames once they are done, else the end they were given (a camera silent since the stop).
    private func alignAudioEnd() {
        guard let end = session.tracks.videoEnd else { return }
        for audio in session.tracks.compactMap(\.audio) { audio.endTime = min(audio.endTime ?? end, end) }
    }

    /// Seconds to the millisecond, for events.
    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
