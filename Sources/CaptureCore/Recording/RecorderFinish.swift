internal import CFFmpeg
import Foundation

/// Ending a recording: drain the encoders, write the trailer once, read the file back, summarize.
extension Recorder {
    func finalize(failure: CaptureError?, stopReason: String, t0: Int64) throws(CaptureError) -> RecordingResult {
        var failure = failure
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
                    ?? .failed("\(filePath): nothing was recorded; no frame or sample arrived before the stop")
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
                failure = .io(subject: filePath, reason: "the finished file does not read back: \(problem)")
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: filePath)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? output.bytesWritten
            summary = RecordingSummary(
                output: filePath, container: container.muxer, video: nil, audio: nil, startOffset: nil,
                duration: check.duration ?? 0, fileSize: size,
                stopReason: failure == nil ? stopReason : "error", error: failure.map { "\($0)" })
            summary.finishProblem = finishProblem
        } else {
            guard streamStarted else {
                throw failure ?? .failed("\(OutputTarget(filePath).printable): nothing was streamed; no frame or sample arrived before the stop")
            }
            summary = streamOnlySummary(reports: streamReports, failure: failure, stopReason: stopReason)
        }
        describeStreams(in: &summary, reports: streamReports)
        if let video {
            let path = video.path
            // A camera's own H.264 may be copied although --codec h264 was asked.
            let codec =
                path.copies
                ? "copy"
                : CodecChoice.encoderName(request.videoCodec ?? container.defaultVideoCodec ?? .h264, in: container)
            summary.video = RecordingSummary.Video(
                device: video.source.device.name,
                input: [video.input.codec, video.input.pixelFormat].compactMap { $0 }.joined(separator: " "),
                codec: codec,
                width: path.width, height: path.height,
                pixelFormat: repairedString(av_get_pix_fmt_name(Self.storedPixelFormat(path.pixelFormat, codec: codec)))
                    ?? video.input.pixelFormat ?? "?",
                frameRateRequested: request.frameRate, frameRate: path.rate,
                frameRateMeasured: path.measuredRate.map { ($0 * 1000).rounded() / 1000 },
                frameRateDelivered: path.deliveredRate.map { ($0 * 1000).rounded() / 1000 },
                framesWritten: path.written,
                framesDropped: .init(late: path.late, corrupt: path.corrupt, gaps: path.gaps),
                framesSkippedAtStart: path.skippedAtStart,
                start: Double(path.firstTime ?? 0) / 1e6)
            if video.input.codec != "rawvideo" && summary.video?.codec == "copy" {
                summary.video?.pixelFormat = video.input.codec
            }
        }
        if let audio {
            let encoder = audio.path.encoder
            summary.audio = RecordingSummary.Audio(
                device: audio.source.device.name, input: audio.input.summary, codec: encoder.name,
                sampleRate: encoder.sampleRate, channels: Int(encoder.channelLayout.nb_channels),
                sampleFormat: audioEncoderPlan?.writtenFormat
                    ?? repairedString(av_get_sample_fmt_name(encoder.sampleFormat)) ?? "?",
                channelLayout: audioEncoderPlan?.layout.name,
                samples: audio.path.samples, overruns: audio.path.overruns,
                start: Double(audio.path.firstTime ?? 0) / 1e6)
        }
        summary.startOffset = measuredStartOffset.map { ($0 * 1e6).rounded() / 1e6 }
        return RecordingResult(summary: summary, failure: failure)
    }

    /// Rewrites a finished MP4, MOV or M4A with its index in front (`FastStartRewrite`).
    ///
    /// - Returns: nil when it was rewritten or is no such file (a FIFO or device given with
    ///   --force is written once, in place); else why it stays fragmented, for the summary.
    private func finishFastStart() -> String? {
        var status = stat()
        guard FastStartRewrite.muxers.contains(container.muxer), stat(filePath, &status) == 0,
            status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        do {
            try FastStartRewrite.rewrite(path: filePath, formatName: container.muxer)
            return nil
        } catch {
            let cause = error.errno == ENOSPC ? "the disk is full" : "\(error)"
            return "the file stays fragmented (complete, but players may show no length and seek slowly): "
                + "rewriting it with its index in front failed: \(cause)"
        }
    }

    /// The pixel format the file holds, as a player decodes it: x264 takes NV12 and NV21 as input
    /// layouts only, and an H.264 stream made from them is planar 4:2:0 like any other.
    static func storedPixelFormat(_ format: AVPixelFormat, codec: String) -> AVPixelFormat {
        codec == "libx264" && (format == AV_PIX_FMT_NV12 || format == AV_PIX_FMT_NV21) ? AV_PIX_FMT_YUV420P : format
    }

    /// Reopens the finished file as a player would and checks its streams and duration.
    private func verify() -> (duration: Double?, problem: String?) {
        let expected = (video == nil ? 0 : 1) + (audio == nil ? 0 : 1)
        // A stream that got nothing (a stop before the microphone's first sample) may be left out
        // of a finished MP4, whose rewrite keeps only tracks with samples.
        let withData = ((video?.path.written ?? 0) > 0 ? 1 : 0) + ((audio?.path.samples ?? 0) > 0 ? 1 : 0)
        do {
            let file = try InputContainer(url: "file:" + filePath, format: nil)
            try file.findStreamInfo()
            let duration = file.duration
            if file.streamCount < min(withData, expected) || file.streamCount > expected {
                return (duration, "it has \(file.streamCount) streams instead of \(expected)")
            }
            let wrote = (video?.path.written ?? 0) > 0 || (audio?.path.samples ?? 0) > 0
            // Raw streams without an index (.h264, .y4m) have only an estimated duration.
            if wrote, container.muxer != "h264", duration == nil || duration == 0 {
                return (duration, "its duration is zero")
            }
            return (duration, nil)
        } catch {
            return (nil, "\(error)")
        }
    }
}
