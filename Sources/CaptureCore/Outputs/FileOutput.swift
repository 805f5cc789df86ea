import FoundationEssentials
import Glibc

/// The recording's one file: its muxer, the file made at its name when the first packet comes
/// (`OutputFile`: nothing is on disk before the header is written, and nothing is replaced
/// unasked), finished with its trailer, an MP4's index moved to the front (`FastStartRewrite`),
/// and read back as a player would. `-` is standard output, written as the pipe it is.
///
/// Not thread-safe: the recording loop's thread only.
final class FileOutput: RecordingOutput {
    let path: String
    private let container: OutputContainer
    private let file: OutputFile
    private let options: [String: String]
    private let replacing: Bool

    /// Prepares the muxer (`avformat_alloc_output_context2`); no file is created yet.
    ///
    /// - Parameters:
    ///   - options: the muxer's options (`RecordingPlan.muxerOptions`).
    ///   - replacing: an existing file at `path` may be replaced.
    /// - Throws: `FFmpegError` when FFmpeg has no such muxer.
    init(path: String, formatName: String, options: [String: String], replacing: Bool) throws(FFmpegError) {
        self.path = path
        self.options = options
        self.replacing = replacing
        container = try OutputContainer(name: path, formatName: formatName)
        file = OutputFile(path: path)
    }

    var name: String { path }
    var carriesRecording: Bool { true }
    var wantsGlobalHeader: Bool { container.wantsGlobalHeader }
    var storesNoTimestamps: Bool { container.storesNoTimestamps }
    var started: Bool { container.headerWritten }
    var bytesWritten: Int64 { container.bytesWritten }
    private var toStandardOutput: Bool { path == "-" }

    func addStream(_ source: StreamSource) throws(FFmpegError) -> Int { try container.addStream(source) }

    /// Writes a packet, creating the file and writing the header on the first one.
    func write(_ packet: Packet, stream: Int) throws(CaptureError) {
        if !container.headerWritten {
            do {
                try file.create(container, options: options, replacing: replacing)
            } catch {
                // The hidden file is gone; the path itself was never touched.
                throw .creatingFailed(error, path: path, formatName: container.formatName)
            }
        }
        do {
            try container.write(packet, stream: stream)
        } catch {
            throw writeError(error)
        }
    }

    func flush() throws(CaptureError) {
        do {
            try container.flush()
        } catch {
            throw writeError(error)
        }
    }

    private func writeError(_ error: FFmpegError) -> CaptureError {
        .writeFailed(error, subject: path, kept: "the file")
    }

    /// Writes the trailer, moves an MP4's index to the front, reads the file back and measures it.
    func finish(_ recorded: RecordedStreams) -> OutputReport {
        var report = OutputReport(name: path, bytes: container.bytesWritten)
        guard container.headerWritten else { return report }
        do {
            try container.finish()
            report.finishProblem = finishFastStart()
        } catch {
            report.failure = writeError(error)
        }
        // Standard output, a FIFO or a device given as the output (written in place) is no file to
        // read back: opening a FIFO to read would wait for a writer that never comes. Its length is
        // the recording's.
        var status = stat()
        guard !toStandardOutput, stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            report.duration = recorded.encodedDuration
            return report
        }
        let check = verify(recorded)
        if report.failure == nil, let problem = check.problem {
            report.failure = .io(subject: path, reason: "the finished file does not read back: \(problem)")
        }
        report.bytes = Int64(status.st_size)
        report.duration = check.duration ?? recorded.frameSpan ?? 0
        return report
    }

    /// Rewrites a finished MP4, MOV or M4A with its index in front (`FastStartRewrite`).
    ///
    /// - Returns: nil when it was rewritten or is no such file (a FIFO or device given with
    ///   replacing allowed is written once, in place); else why it stays fragmented, for the summary.
    private func finishFastStart() -> String? {
        var status = stat()
        guard FastStartRewrite.muxers.contains(container.formatName), !toStandardOutput, stat(path, &status) == 0,
            status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        do {
            try FastStartRewrite.rewrite(path: path, formatName: container.formatName, spans: container.spans)
            return nil
        } catch {
            let cause = CaptureError.writeCause(error)
            return "the file stays fragmented (complete, but players may show no length and seek slowly): "
                + "rewriting it with its index in front failed: \(cause)"
        }
    }

    /// Reopens the finished file as a player would and checks its streams and duration.
    private func verify(_ recorded: RecordedStreams) -> (duration: Double?, problem: String?) {
        do {
            let reading = try InputContainer(url: "file:" + path, format: nil)
            try reading.findStreamInfo()
            let duration = reading.duration.flatMap { $0 > 0 ? $0 : nil }
            // A stream that got nothing (a stop before the microphone's first sample) may be left
            // out of a finished MP4, whose rewrite keeps only tracks with samples.
            if reading.streamCount < min(recorded.withData, recorded.count) || reading.streamCount > recorded.count {
                return (duration, "it has \(reading.streamCount) streams instead of \(recorded.count)")
            }
            // One picture and nothing else has no length where packets carry no duration (.nut
            // keeps timestamps only): its one timestamp is both start and end. A stop that came
            // with the first frame is a recording all the same. Raw streams without an index
            // (.h264, .y4m) have only an estimated duration.
            if recorded.wroteAnything, !recorded.onePicture, container.formatName != "h264",
                duration == nil || duration == 0
            {
                return (duration, "its duration is zero")
            }
            return (duration, nil)
        } catch {
            return (nil, "\(error)")
        }
    }
}
