/// Makes a plan's outputs: its file, its series of files, its clips or its HLS playlist, and each network
/// stream. The one
/// place outside `Outputs/` that knows the kinds; the session sees only `OutputTee`.
enum OutputFactory {
    /// Prepares every output's muxer; nothing is connected and no file is created yet. The
    /// streams' URL secrets are hidden from the library log from now on.
    ///
    /// - Throws: `.failed` when FFmpeg has no muxer for the file (`avformat_alloc_output_context2`).
    static func outputs(for plan: RecordingPlan) throws(CaptureError) -> OutputTee {
        var outputs: [any RecordingOutput] = []
        if !plan.deviceFiles.isEmpty {
            for (device, path) in plan.deviceFiles.enumerated() {
                outputs.append(StreamSelection.device(device, try file(path, plan: plan)))
            }
        } else if let clips = plan.clips {
            outputs.append(
                try media("preparing \(plan.output)") { () throws(FFmpegError) in
                    try ClipOutput(
                        plan: clips, formatName: plan.container.muxer, options: plan.muxerOptions,
                        replacing: plan.force)
                })
        } else if let playlist = plan.playlist {
            outputs.append(
                try media("preparing \(plan.output)") { () throws(FFmpegError) in
                    try PlaylistOutput(path: plan.output, plan: playlist, replacing: plan.force)
                })
        } else if let path = plan.outputs.file {
            outputs.append(try file(path, plan: plan))
        }
        var settings = StreamOutput.Settings()
        settings.connectTimeout = plan.connectTimeout
        settings.reconnectTimeout = plan.reconnectTimeout
        settings.writeTimeout = max(plan.connectTimeout, 5)
        for stream in plan.outputs.streams {
            LibraryLog.shared.hide(stream.target.secrets, in: stream.target.url, as: stream.target.printable)
            // A server takes one video and one audio stream: of several, the chosen ones.
            outputs.append(
                StreamSelection.carrying(
                    camera: plan.streamCamera, microphone: plan.streamMicrophone,
                    StreamOutput(target: stream.target, formatName: stream.muxer, settings: settings)))
        }
        return OutputTee(outputs)
    }

    /// The file at `path`, or with segments the series it is the template of.
    private static func file(_ path: String, plan: RecordingPlan) throws(CaptureError) -> any RecordingOutput {
        if let segments = plan.segments {
            // A device's own series: the plan's, under the device's name.
            var series = segments
            if !plan.deviceFiles.isEmpty { series.template = try OutputTemplate(path, utc: segments.template.utc) }
            return try media("preparing \(path)") { () throws(FFmpegError) in
                try SegmentedOutput(
                    plan: series, formatName: plan.container.muxer, options: plan.muxerOptions, replacing: plan.force)
            }
        }
        return try media("preparing \(path)") { () throws(FFmpegError) in
            try FileOutput(
                path: path, formatName: plan.container.muxer, options: plan.muxerOptions, replacing: plan.force)
        }
    }
}
