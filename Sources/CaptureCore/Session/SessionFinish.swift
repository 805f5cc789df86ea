import FoundationEssentials
import Glibc

/// Ending a recording: drain the encoders, write the trailer once, read the file back, summarize.
extension RecordingSession {
    /// - Parameters:
    ///   - failure: the error that ended the recording, if one did.
    ///   - startOffset: the microphone's first sample minus the camera's first frame, in seconds.
    /// - Throws: when nothing reached the file: the failure, or why nothing was recorded.
    func finalize(failure: CaptureError?, stopReason: StopReason, startOffset: Double?) throws(CaptureError)
        -> RecordingResult
    {
        var failure = failure
        let mux: EncodedStream.Mux = { (packet, stream) throws(CaptureError) in try self.mux(packet, stream: stream) }
        do {
            for track in tracks { try track.path.finish(mux: mux) }
        } catch {
            if failure == nil { failure = error }
        }
        let started = outputs.started
        let (carriers, reports) = outputs.finish(recordedStreams)
        let main = OutputReport.combined(carriers, name: plan.output)
        _ = reportOutputs()
        for audio in tracks.compactMap(\.audio) { audio.meter.finish() }
        reportLevels()
        guard started else {
            // Nothing reached the file, so there is no file: report why.
            let nothing =
                carriers.isEmpty
                ? "\(reports.first?.name ?? plan.output): nothing was streamed; no frame or sample arrived before the stop"
                : "\(plan.output): nothing was recorded; no frame or sample arrived before the stop"
            throw failure ?? .failed(nothing)
        }
        let streams = reports.compactMap(\.stream)
        // The summary is the carriers' (the file, the series, each device's file); a recording
        // that only streams reports the first stream's URL and the bytes sent over all of them.
        if failure == nil { failure = main?.failure }
        var summary = RecordingSummary(
            output: main?.name ?? reports.first?.name ?? plan.output, container: plan.container.muxer, video: nil,
            audio: nil, startOffset: nil, duration: main?.duration ?? encodedDuration,
            fileSize: main?.bytes ?? reports.reduce(0) { $0 + $1.bytes },
            stopReason: failure == nil ? stopReason.text : StopReason.error.text, error: failure.map { "\($0)" })
        summary.finishProblem = main?.finishProblem
        summary.segments = main?.segments
        summary.clips = main?.clips
        summary.preRoll = main?.preRoll
        if !plan.deviceFiles.isEmpty {
            // A series reads back as no one file: its device's stream's length as encoded.
            summary.files = carriers.enumerated().map { device, report in
                let duration = report.duration ?? recordedStreams.subset([device]).encodedDuration
                return .init(path: report.name, fileSize: report.bytes, duration: duration, segments: report.segments)
            }
        }
        var cameras: [RecordingSummary.Video] = []
        let firstCamera = tracks.cameras.first?.video
        for track in tracks.cameras {
            guard var summary = videoSummary(track), let path = track.video else { continue }
            // Free-running cameras: how their frames stood against the first camera's.
            if tracks.cameras.count > 1, let firstCamera {
                summary.drift = CameraSkew.drift(of: path)
                if path !== firstCamera { summary.framePhase = CameraSkew.phase(of: path, against: firstCamera) }
            }
            cameras.append(summary)
        }
        let microphones = tracks.microphones.compactMap(audioSummary)
        summary.video = cameras.first
        summary.audio = microphones.first
        if cameras.count > 1 { summary.cameras = cameras }
        if microphones.count > 1 { summary.microphones = microphones }
        summary.startOffset = startOffset.map { ($0 * 1e6).rounded() / 1e6 }
        if !streams.isEmpty { summary.streams = streams }
        summary.controls = appliedControls?.report ?? lostCameraControls
        return RecordingResult(summary: summary, failure: failure)
    }

    private func videoSummary(_ video: Track) -> RecordingSummary.Video? {
        guard let path = video.video, let planned = plan.videos.first(where: { $0.device == video.source.device })
        else { return nil }
        // A camera whose source changed mode recorded in several chains: their counts add up, the
        // size and rate are the last mode's.
        let modes = video.videoModes
        func total(_ count: (VideoPath) -> Int) -> Int { modes.reduce(0) { $0 + count($1) } }
        let deviceLosses = video.reader.numbersBuffers ? total(\.tally.lostByDevice) : nil
        // A camera's own H.264 may be copied although H.264 encoding was asked.
        // YUV4MPEG's raw pictures travel to its muxer wrapped (`wrapped_avframe`); they are stored
        // as rawvideo, which is what the reader needs to know.
        let codec =
            path.copies
            ? "copy"
            : planned.requestedCodec == .raw
                ? "rawvideo"
                : video.encoderName ?? CodecChoice.encoderName(planned.requestedCodec, in: plan.container)
        var summary = RecordingSummary.Video(
            device: video.device,
            input: [video.input.codec, video.input.pixelFormat].compactMap { $0 }.joined(separator: " "),
            codec: codec, width: path.width, height: path.height,
            pixelFormat: storedPixelFormat(path, codec: codec),
            frameRateRequested: planned.requestedFrameRate, frameRate: path.rate,
            frameRateMeasured: path.measuredRate.map { ($0 * 1000).rounded() / 1000 },
            frameRateDelivered: path.tally.deliveredRate.map { ($0 * 1000).rounded() / 1000 },
            framesWritten: total(\.written),
            framesDropped: .init(
                late: total(\.tally.late), corrupt: total(\.tally.corrupt),
                gaps: deviceLosses == nil ? total(\.tally.gaps) : linkReports.missingWhileAway[video.lane] ?? 0,
                device: deviceLosses),
            framesSkippedAtStart: total(\.skippedAtStart),
            framesDuplicated: path.fillsEmptySlots || total(\.duplicated) > 0 ? total(\.duplicated) : nil,
            // A first frame captured just before the start sits in slot 0: the stream starts at 0.
            start: Double(max(0, modes.first?.firstTime ?? 0)) / 1e6)
        if path.copies {
            summary.pixelFormat = video.input.codec == "rawvideo" ? summary.pixelFormat : video.input.codec
        }
        summary.encoderBudget = video.encoderBudget
        if let link = linkTotals(lane: video.lane) {
            summary.reconnects = link.reconnects
            summary.secondsDisconnected = link.seconds
        }
        return summary
    }

    /// The pixel format as ffprobe names the stream: full-range 4:2:0 (a JPEG's range kept) is
    /// `yuvj420p`.
    private func storedPixelFormat(_ path: VideoPath, codec: String) -> String {
        let name = path.pixelFormat.stored(by: codec).name
        return path.keepsFullRange && codec != "copy" && name == "yuv420p" ? "yuvj420p" : name
    }

    private func audioSummary(_ audio: Track) -> RecordingSummary.Audio? {
        guard let path = audio.audio else { return nil }
        let encoder = path.encoder
        var summary = RecordingSummary.Audio(
            device: audio.device, input: audio.input.summary, codec: encoder.name,
            sampleRate: encoder.sampleRate, channels: encoder.channelCount,
            sampleFormat: path.plan.writtenFormat, channelLayout: path.plan.layout.name,
            samples: path.samples, overruns: path.overruns, start: Double(path.firstTime ?? 0) / 1e6)
        summary.levels = path.meter.summary
        if let link = linkTotals(lane: audio.lane) {
            summary.reconnects = link.reconnects
            summary.secondsDisconnected = link.seconds
        }
        return summary
    }

    /// With reconnecting: how often the device of `lane` came back and the seconds it was away,
    /// to a tenth of a second.
    private func linkTotals(lane: Int) -> (reconnects: Int, seconds: Double)? {
        guard plan.deviceReconnect != nil, let reader = reader(lane: lane), reader.source.live else { return nil }
        let totals = reader.link.totals(now: SessionClock.now())
        return (totals.reconnects, (totals.seconds * 10).rounded() / 10)
    }
}
