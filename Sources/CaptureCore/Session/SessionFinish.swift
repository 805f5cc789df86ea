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
            try video?.path.finish(mux: mux)
            try audio?.path.finish(mux: mux)
        } catch {
            if failure == nil { failure = error }
        }
        let streamReports = finishStreams()
        var summary: RecordingSummary
        if let output {
            guard output.headerWritten else {
                // Nothing reached the file, so there is no file: report why.
                throw failure
                    ?? .failed("\(plan.output): nothing was recorded; no frame or sample arrived before the stop")
            }
            var finishProblem: String?
            do {
                try output.finish()
                finishProblem = finishFastStart()
            } catch {
                if failure == nil { failure = writeError(error) }
            }
            let check = verify()
            if failure == nil, let problem = check.problem {
                failure = .io(subject: plan.output, reason: "the finished file does not read back: \(problem)")
            }
            var status = stat()
            let size =
                !plan.outputs.toStandardOutput && stat(plan.output, &status) == 0
                ? Int64(status.st_size) : output.bytesWritten
            summary = RecordingSummary(
                output: plan.output, container: plan.container.muxer, video: nil, audio: nil, startOffset: nil,
                duration: check.duration ?? recordedDuration ?? 0, fileSize: size,
                stopReason: failure == nil ? stopReason.text : StopReason.error.text, error: failure.map { "\($0)" })
            summary.finishProblem = finishProblem
        } else if let segments {
            guard segments.started else {
                throw failure
                    ?? .failed("\(plan.output): nothing was recorded; no frame or sample arrived before the stop")
            }
            if let problem = segments.finish(), failure == nil { failure = problem }
            reportSegments()
            summary = RecordingSummary(
                output: plan.output, container: plan.container.muxer, video: nil, audio: nil, startOffset: nil,
                duration: encodedDuration, fileSize: segments.bytesWritten,
                stopReason: failure == nil ? stopReason.text : StopReason.error.text, error: failure.map { "\($0)" })
            summary.segments = segments.count
        } else {
            guard streamStarted else {
                throw failure
                    ?? .failed(
                        "\(plan.outputs.streams.first?.target.printable ?? plan.output): nothing was streamed; no frame or sample arrived before the stop"
                    )
            }
            summary = streamOnlySummary(reports: streamReports, failure: failure, stopReason: stopReason)
        }
        summary.video = videoSummary
        summary.audio = audioSummary
        summary.startOffset = startOffset.map { ($0 * 1e6).rounded() / 1e6 }
        if !streamReports.isEmpty { summary.streams = streamReports }
        summary.controls = appliedControls?.report ?? lostCameraControls
        return RecordingResult(summary: summary, failure: failure)
    }

    /// Passes the segments' news (opened, closed, deleted) to `onEvent`.
    func reportSegments() {
        guard let segments else { return }
        for event in segments.takeEvents() { onEvent?(event) }
        if let warning = segments.takeWarning() { onWarning(warning) }
    }

    private var videoSummary: RecordingSummary.Video? {
        guard let video, let planned = plan.video else { return nil }
        let path = video.path
        // A camera's own H.264 may be copied although H.264 encoding was asked.
        // YUV4MPEG's raw pictures travel to its muxer wrapped (`wrapped_avframe`); they are stored
        // as rawvideo, which is what the reader needs to know.
        let codec =
            path.copies
            ? "copy"
            : planned.requestedCodec == .raw
                ? "rawvideo" : CodecChoice.encoderName(planned.requestedCodec, in: plan.container)
        var summary = RecordingSummary.Video(
            device: video.device,
            input: [video.input.codec, video.input.pixelFormat].compactMap { $0 }.joined(separator: " "),
            codec: codec, width: path.width, height: path.height,
            pixelFormat: path.pixelFormat.stored(by: codec).name,
            frameRateRequested: planned.requestedFrameRate, frameRate: path.rate,
            frameRateMeasured: path.measuredRate.map { ($0 * 1000).rounded() / 1000 },
            frameRateDelivered: path.deliveredRate.map { ($0 * 1000).rounded() / 1000 },
            framesWritten: path.written,
            framesDropped: .init(late: path.late, corrupt: path.corrupt, gaps: path.gaps),
            framesSkippedAtStart: path.skippedAtStart,
            framesDuplicated: path.fillsEmptySlots || path.duplicated > 0 ? path.duplicated : nil,
            // A first frame captured just before the start sits in slot 0: the stream starts at 0.
            start: Double(max(0, path.firstTime ?? 0)) / 1e6)
        if path.copies {
            summary.pixelFormat = video.input.codec == "rawvideo" ? summary.pixelFormat : video.input.codec
        }
        if let link = linkTotals(lane: video.lane) {
            summary.reconnects = link.reconnects
            summary.secondsDisconnected = link.seconds
        }
        return summary
    }

    private var audioSummary: RecordingSummary.Audio? {
        guard let audio else { return nil }
        let encoder = audio.path.encoder
        var summary = RecordingSummary.Audio(
            device: audio.device, input: audio.input.summary, codec: encoder.name,
            sampleRate: encoder.sampleRate, channels: encoder.channelCount,
            sampleFormat: audioEncoderPlan?.writtenFormat ?? encoder.sampleFormatName,
            channelLayout: audioEncoderPlan?.layout.name,
            samples: audio.path.samples, overruns: audio.path.overruns,
            start: Double(audio.path.firstTime ?? 0) / 1e6)
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

    /// Rewrites a finished MP4, MOV or M4A with its index in front (`FastStartRewrite`).
    ///
    /// - Returns: nil when it was rewritten or is no such file (a FIFO or device given with
    ///   replacing allowed is written once, in place); else why it stays fragmented, for the summary.
    private func finishFastStart() -> String? {
        var status = stat()
        guard FastStartRewrite.muxers.contains(plan.container.muxer), !plan.outputs.toStandardOutput,
            stat(plan.output, &status) == 0,
            status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        do {
            try FastStartRewrite.rewrite(
                path: plan.output, formatName: plan.container.muxer, spans: output?.spans ?? [:])
            return nil
        } catch {
            let cause = error.errno == ENOSPC ? "the disk is full" : "\(error)"
            return "the file stays fragmented (complete, but players may show no length and seek slowly): "
                + "rewriting it with its index in front failed: \(cause)"
        }
    }

    /// The recording's length as its frames give it, from the first frame's slot to the end of the
    /// last one's at the stream's rate (the frames in the file over the rate, once empty slots are
    /// filled): for a raw stream with no index, whose demuxer reads no duration (`.h264`).
    private var recordedDuration: Double? {
        guard let tally = video?.path.tally, let first = tally.firstSlot, let last = tally.lastSlot,
            let rate = video?.path.rate, rate.doubleValue > 0
        else { return nil }
        return (Double(last - first + 1) / rate.doubleValue * 1e6).rounded() / 1e6
    }

    /// Reopens the finished file as a player would and checks its streams and duration; a pipe
    /// (standard output) cannot be read back, and its length is the recording's.
    private func verify() -> (duration: Double?, problem: String?) {
        if plan.outputs.toStandardOutput { return (encodedDuration, nil) }
        let expected = (video == nil ? 0 : 1) + (audio == nil ? 0 : 1)
        // A stream that got nothing (a stop before the microphone's first sample) may be left out
        // of a finished MP4, whose rewrite keeps only tracks with samples.
        let withData = ((video?.path.written ?? 0) > 0 ? 1 : 0) + ((audio?.path.samples ?? 0) > 0 ? 1 : 0)
        do {
            let file = try InputContainer(url: "file:" + plan.output, format: nil)
            try file.findStreamInfo()
            let duration = file.duration.flatMap { $0 > 0 ? $0 : nil }
            if file.streamCount < min(withData, expected) || file.streamCount > expected {
                return (duration, "it has \(file.streamCount) streams instead of \(expected)")
            }
            let wrote = (video?.path.written ?? 0) > 0 || (audio?.path.samples ?? 0) > 0
            // One picture and nothing else has no length where packets carry no duration (.nut
            // keeps timestamps only): its one timestamp is both start and end. A stop that came
            // with the first frame is a recording all the same.
            let onePicture = (video?.path.written ?? 0) == 1 && (audio?.path.samples ?? 0) == 0
            // Raw streams without an index (.h264, .y4m) have only an estimated duration.
            if wrote, !onePicture, plan.container.muxer != "h264", duration == nil || duration == 0 {
                return (duration, "its duration is zero")
            }
            return (duration, nil)
        } catch {
            return (nil, "\(error)")
        }
    }
}
