import FoundationEssentials

/// Turns a request into a `RecordingPlan`: which devices, modes, codecs, formats, encoder and
/// muxer settings.
///
/// `plan(_:survey:)` is pure: it decides from the request and what the devices reported, opens
/// nothing and touches no file, so it is tested from recorded driver answers. `plan(_:)` first
/// takes that survey (resolving names, probing the devices) and checks the output path, in the
/// order a user's mistakes are best reported: the container, the options, the output, the devices.
public enum RecordingPlanner {
    /// Plans `request` on the devices it names, probing them; the first V4L2 camera when it names
    /// none.
    ///
    /// - Throws: `CaptureError`: `.plan` (64) for options that do not fit together, `.usage` (64)
    ///   for an output without a known extension, `.outputExists`/`.cannotCreate` (73) for an
    ///   output that cannot be written, the resolver's and probers' errors (66, 69, 75, 77).
    public static func plan(_ request: RecordingRequest) throws(CaptureError) -> RecordingPlan {
        let outputs = try OutputPlan(request)
        let defaultCamera = request.video == nil && request.audio == nil ? try DeviceSurvey.defaultCamera() : nil
        try check(request, outputs: outputs, hasVideo: request.video != nil || defaultCamera != nil)
        let template = try segmentTemplate(request, outputs: outputs)
        if try playlist(request, outputs: outputs) != nil, let file = outputs.file {
            try PlaylistPlan.check(playlist: file, replacing: request.force)
        } else if request.preRoll != nil, let clips = try clips(request, outputs: outputs) {
            // The first clip's name, as far as it is known: a numbered one from an earlier run.
            try OutputFile.check(path: clips.template.path(number: 1, date: Date()), replacing: request.force)
        } else if let template, !outputs.perDevice(request) {
            // The first segment's name; later ones are refused as they come if they exist.
            try OutputFile.check(path: template.path(number: 1, date: Date()), replacing: request.force)
        } else if let file = outputs.file, !outputs.toStandardOutput, !outputs.perDevice(request) {
            try OutputFile.check(path: file, replacing: request.force)
        }
        let cameras = try resolve(request.cameras.map(\.device), kind: .video)
        let microphones = try resolve(request.microphones.map(\.device), kind: .audio)
        // The microphones first: what one delivers decides its encoder, and a microphone that
        // cannot be used is found before a camera's probe.
        var survey = DeviceSurvey(cameras: [], microphones: [])
        for device in microphones { survey.microphones.append(try DeviceSurvey.entry(for: device, kind: .audio)) }
        for device in defaultCamera.map({ [$0] }) ?? cameras {
            survey.cameras.append(try DeviceSurvey.entry(for: device, kind: .video))
        }
        if request.encoder != .x264 { survey.hardwareEncoders = HardwareEncoderDevices.scan() }
        let plan = try plan(request, survey: survey, checked: (outputs, template))
        for file in plan.deviceFiles {
            let first =
                template == nil ? file : try OutputTemplate(file, utc: request.utc).path(number: 1, date: Date())
            try OutputFile.check(path: first, replacing: request.force)
        }
        return plan
    }

    /// Plans `request` on the surveyed devices. Pure.
    ///
    /// - Throws: `CaptureError`: `.plan` for options that do not fit the devices or the container;
    ///   the mode selector's and audio planners' errors (64, 69) for what a device cannot do.
    public static func plan(_ request: RecordingRequest, survey: DeviceSurvey) throws(CaptureError) -> RecordingPlan {
        try plan(request, survey: survey, checked: nil)
    }

    /// - Parameter checked: the outputs and segment template `plan(_:)` has planned and checked
    ///   already; nil to plan and check them here.
    private static func plan(
        _ request: RecordingRequest, survey: DeviceSurvey, checked: (OutputPlan, OutputTemplate?)?
    ) throws(CaptureError) -> RecordingPlan {
        let outputs: OutputPlan
        let template: OutputTemplate?
        if let checked {
            (outputs, template) = checked
        } else {
            outputs = try OutputPlan(request)
            try check(request, outputs: outputs, hasVideo: survey.video != nil)
            template = try segmentTemplate(request, outputs: outputs)
        }
        let container = outputs.container
        // In this order, so the first problem found is the one a user meets first: the microphone,
        // then the camera's controls, then the camera.
        var audios: [RecordingPlan.Audio] = []
        for (entry, asked) in zip(survey.microphones, microphoneRequests(request, count: survey.microphones.count)) {
            audios.append(try audio(request, asked, entry: entry, container: container))
        }
        var controls: RecordingPlan.Controls?
        if !request.controls.isEmpty || request.controlsProfile != nil {
            guard survey.video?.device.api == .v4l2 else { throw .plan(.controlsNeedCamera) }
            controls = .init(
                settings: request.controls, profile: request.controlsProfile, restore: request.restoreControls)
        }
        var videos: [RecordingPlan.Video] = []
        let hardware = survey.hardwareEncoders ?? HardwareEncoderDevices()
        for (entry, asked) in zip(survey.cameras, cameraRequests(request, count: survey.cameras.count)) {
            videos.append(try video(request, asked, entry: entry, container: container, hardware: hardware))
        }
        var deviceFiles: [String] = []
        if let file = outputs.file, outputs.perDevice(request) {
            let names = videos.map(\.device.name) + audios.map(\.device.name)
            deviceFiles = try DeviceFiles.paths(file, names: names, segments: template != nil)
        }
        return RecordingPlan(
            output: outputs.file ?? request.output, outputs: outputs, container: container, force: request.force,
            muxerOptions: muxerOptions(for: container), videos: videos, audios: audios, duration: request.duration,
            frameLimit: request.frames, stallTimeout: request.stallTimeout, connectTimeout: request.connectTimeout,
            reconnectTimeout: request.reconnectTimeout,
            deviceReconnect: request.reconnect ? .init(timeout: request.deviceReconnectTimeout) : nil,
            controls: controls,
            segments: template.map {
                SegmentPlan(
                    template: $0, seconds: request.segmentTime, bytes: request.segmentSize,
                    retention: request.retention)
            },
            playlist: try playlist(request, outputs: outputs), streamCamera: request.streamCamera ?? 0,
            streamMicrophone: request.streamMicrophone ?? 0, deviceFiles: deviceFiles,
            levelInterval: request.levelInterval, clips: try clips(request, outputs: outputs),
            preview: request.preview)
    }

    /// Refuses a segment length under 1 s (a cut waits for the last frames of the segment before
    /// to leave the encoder, so shorter ones would be cut less often than asked) or past the
    /// longest duration the clock takes.
    ///
    /// - Throws: `.usage` (64).
    static func checkSegmentTime(_ seconds: Double) throws(CaptureError) {
        guard seconds < 1 || seconds > DurationValue.longest else { return }
        throw .usage(
            "\(.segmentTime) takes 1 s to \(DurationValue.text(DurationValue.longest)) s, not \(DurationValue.text(seconds))"
        )
    }

    /// The segments and window of an HLS recording (a `.m3u8` output); nil for any other.
    /// `--segment-time` is its segment length (2 s unless given), `--keep` and `--max-total-size`
    /// its window.
    ///
    /// - Throws: `.usage` for a playlist name a URL would misread or without `.m3u8`, a segment
    ///   length out of range or not whole, `--keep` below 1, and for the options a
    ///   playlist does not take (a segment size, UTC names, standard output).
    static func playlist(_ request: RecordingRequest, outputs: OutputPlan) throws(CaptureError) -> PlaylistPlan? {
        guard outputs.container.muxer == "hls", let file = outputs.file else { return nil }
        if outputs.toStandardOutput {
            throw .usage("an HLS playlist is a playlist file and its segments, not a pipe; give a .m3u8 path")
        }
        try PlaylistPlan.checkName(file)
        if request.segmentSize != nil {
            throw .usage("an HLS playlist cuts its segments by time: use \(.segmentTime), not \(.segmentSize)")
        }
        if request.utc { throw .usage("\(.utc) names segments by time; an HLS playlist numbers them") }
        let seconds = request.segmentTime ?? PlaylistPlan.defaultSegmentSeconds
        try checkSegmentTime(seconds)
        // A playlist's target duration is a whole number of seconds no segment may exceed.
        if seconds != seconds.rounded() {
            throw .usage("\(.segmentTime) of an HLS playlist takes whole seconds, not \(DurationValue.text(seconds))")
        }
        try request.retention.validate(segmentBytes: nil)
        try checkBudget(request.retention)
        return PlaylistPlan(
            segmentSeconds: seconds, keep: request.retention.keep, maxTotalBytes: request.retention.maxTotalBytes)
    }

    /// Refuses a size budget below 1M, as a segment size below 1M is: a budget that small keeps
    /// next to nothing, each segment deleted about as soon as it is finished.
    ///
    /// - Throws: `.usage` (64).
    static func checkBudget(_ retention: RetentionPolicy) throws(CaptureError) {
        if let bytes = retention.maxTotalBytes, bytes < 1 << 20 {
            throw .usage("\(.maxTotalSize) takes 1M or more, not \(bytes) bytes")
        }
    }

    /// Checks that need no device: options that need a source or a codec, pixel formats, and
    /// whether the file and the streams hold the codecs.
    static func check(_ request: RecordingRequest, outputs: OutputPlan, hasVideo: Bool) throws(CaptureError) {
        try checkSeveral(request, outputs: outputs)
        let container = outputs.container
        do {
            try check(request, container: container, hasVideo: hasVideo, validatesContainer: !outputs.streamsOnly)
        } catch {
            throw .plan(error)
        }
        // x264 takes one rate control: a bit rate would silently replace the crf.
        if request.crf != nil && request.bitRate != nil {
            throw .usage("\(.crf) and \(.bitRate) are two ways to set the quality; give one")
        }
        try outputs.checkStreams(
            video: hasVideo ? request.videoCodec ?? container.defaultVideoCodec ?? .h264 : nil,
            audio: request.audio != nil ? request.audioCodec ?? container.defaultAudioCodec ?? .aac : nil)
    }

    /// The template of a segmented recording; nil for one file.
    ///
    /// - Throws: `.plan` for segments without a file, or a retention option or `utc` without
    ///   segments; `.usage` for a template that does not parse or limits that do not fit.
    static func segmentTemplate(_ request: RecordingRequest, outputs: OutputPlan) throws(CaptureError)
        -> OutputTemplate?
    {
        // An HLS playlist cuts its own segments (`playlist`).
        guard outputs.container.muxer != "hls" else { return nil }
        guard request.segmentTime != nil || request.segmentSize != nil else {
            // Event clips take these too (`clips`).
            if request.preRoll != nil { return nil }
            for (given, option) in [
                (request.retention.keep != nil, RequestOption.keep),
                (request.retention.maxTotalBytes != nil, .maxTotalSize), (request.utc, .utc),
            ] where given {
                throw .plan(.needsSegments(option))
            }
            return nil
        }
        guard let file = outputs.file, !outputs.toStandardOutput else { throw .plan(.segmentsNeedFile) }
        if let seconds = request.segmentTime { try checkSegmentTime(seconds) }
        if let bytes = request.segmentSize, bytes < 1 << 20 {
            throw .usage("\(.segmentSize) takes 1M or more, not \(bytes) bytes")
        }
        // FLAC numbers its frames from the encoder's start and writes its totals at the end:
        // a later segment would be no FLAC file of its own.
        if request.audio != nil, (request.audioCodec ?? outputs.container.defaultAudioCodec) == .flac {
            throw .usage(
                "FLAC cannot be cut into segments that stand on their own; record the segments as .wav, "
                    + "or with \(.audioCodec, "pcm") into .mkv")
        }
        try request.retention.validate(segmentBytes: request.segmentSize)
        try checkBudget(request.retention)
        // A per-device template is checked as the first device's would be.
        let pattern = outputs.perDevice(request) ? DeviceFiles.path(file, index: 0, name: "name", segments: true) : file
        let template: OutputTemplate
        do {
            template = try OutputTemplate(pattern, utc: request.utc)
        } catch .usage(let message) {
            // Named as the user wrote it.
            var named = message
            named.parts = message.parts.map { part in
                guard case .text(let text) = part else { return part }
                return .text(text.replacing(pattern, with: file))
            }
            throw .usage(named)
        } catch {
            throw error
        }
        if !template.numbersFiles, let seconds = request.segmentTime, seconds < template.finestPeriod ?? .infinity {
            throw .usage(
                "\(file): its names change \(template.finestPeriod.map { "every \(DurationValue.text($0)) s" } ?? "never"), "
                    + "less often than segments start; add %n, or a finer time field")
        }
        return template
    }

    static func check(
        _ request: RecordingRequest, container: ContainerFormat, hasVideo: Bool, validatesContainer: Bool = true
    ) throws(RecordingPlanError) {
        let videoCodec = hasVideo ? request.videoCodec ?? container.defaultVideoCodec ?? .h264 : nil
        let audioCodec = request.audio != nil ? request.audioCodec ?? container.defaultAudioCodec ?? .aac : nil
        if videoCodec == nil {
            for (given, option) in [
                (request.frames != nil, RequestOption.frameLimit), (request.videoCodec != nil, .videoCodec),
                (request.videoSize != nil, .videoSize), (request.frameRate != nil, .frameRate),
                (request.pixelFormat != nil, .pixelFormat), (request.inputFormat != nil, .inputFormat),
                (request.encoder != .auto, .encoder),
            ] where given {
                throw .needsVideo(option)
            }
        }
        if audioCodec == nil {
            for (given, option) in [
                (request.audioCodec != nil, RequestOption.audioCodec), (request.sampleRate != nil, .sampleRate),
                (request.channels != nil, .channels), (request.sampleFormat != nil, .sampleFormat),
            ] where given {
                throw .needsAudio(option)
            }
        }
        if videoCodec != .h264 {
            for (given, option) in [
                (request.crf != nil, RequestOption.crf), (request.preset != nil, .preset),
                (request.bitRate != nil, .bitRate),
                (request.maxRate != nil, .maxRate), (request.bufferSize != nil, .bufferSize),
                (request.encoder != .auto, .encoder),
            ] where given {
                throw .appliesToH264Only(option)
            }
        }
        if videoCodec == .copy && request.pixelFormat != nil { throw .pixelFormatWithCopy }
        if let name = request.pixelFormat {
            guard let format = PixelFormat(name: name) else { throw .unknownPixelFormat(name) }
            let takes = PixelFormat.x264Formats420
            if videoCodec == .h264 && !takes.contains(format) { throw .h264Needs420(name, takes: takes.map(\.name)) }
            if videoCodec == .raw && container.holdsVideo {
                try RawPictureFormats.check(name, in: container, withAudio: request.audio != nil)
            }
        }
        if validatesContainer {
            try CodecChoice.validate(
                video: videoCodec, pixelFormat: request.pixelFormat, audio: audioCodec, in: container)
        }
    }

    private static func video(
        _ request: RecordingRequest, _ asked: CameraRequest, entry: DeviceSurvey.Entry, container: ContainerFormat,
        hardware: HardwareEncoderDevices
    ) throws(CaptureError) -> RecordingPlan.Video {
        let requested = request.videoCodec ?? container.defaultVideoCodec ?? .h264
        let source = try InputSource.make(
            entry.device, kind: .video,
            video: VideoRequest(
                frameSize: asked.videoSize, frameRate: asked.frameRate, inputFormat: asked.inputFormat,
                copy: requested == .copy, buffers: request.buffers, reader: request.v4l2Reader),
            camera: entry.camera)
        let copies =
            source.mode.map {
                copiesCameraStream(
                    requested, cameraFormat: $0.inputFormat, width: $0.width, height: $0.height, request: request)
            }
            ?? false
        return RecordingPlan.Video(
            device: entry.device, source: source, codec: copies ? .copy : requested, requestedCodec: requested,
            requestedFrameRate: asked.frameRate, pixelFormat: request.pixelFormat, bitRate: request.bitRate,
            x264Options: x264Options(request), presetAsked: request.preset,
            offeredModes: entry.camera.map(PresetBudget.modes) ?? [],
            encoders: copies ? [] : try encoders(request, codec: requested, hardware: hardware))
    }

    private static func audio(
        _ request: RecordingRequest, _ asked: MicrophoneRequest, entry: DeviceSurvey.Entry, container: ContainerFormat
    ) throws(CaptureError) -> RecordingPlan.Audio {
        let codec = request.audioCodec ?? container.defaultAudioCodec ?? .aac
        let source = try InputSource.make(
            entry.device, kind: .audio,
            audio: .init(sampleRate: asked.sampleRate, channels: asked.channels, sampleFormat: request.sampleFormat),
            microphone: entry.microphone)
        var encoder: AudioEncoderPlan?
        if let format = source.audioPlan {
            // A microphone's format is known from its probe: the encoder is decided now, so a channel
            // count the encoder cannot hold is refused before anything opens.
            encoder = try AudioEncoderPlanner.plan(
                codec: codec, container: container,
                input: .init(
                    format: AudioEncoderPlanner.format(ofCodec: format.codec), sampleRate: format.outputSampleRate,
                    channels: format.outputChannels),
                requested: request.sampleFormat, device: entry.device.name)
        } else if request.sampleFormat != nil, codec == .aac || codec == .opus {
            throw .plan(.sampleFormatNotForCodec(codec))
        }
        return RecordingPlan.Audio(
            device: entry.device, source: source, codec: codec, sampleRate: asked.sampleRate,
            channels: asked.channels, sampleFormat: request.sampleFormat, encoder: encoder)
    }

    /// True when H.264 asked of a camera that sends H.264 itself writes the camera's stream as
    /// it is: nothing asks for re-encoding (no crf, bit rate, preset, pixel format or encoder), so a decode
    /// and a second lossy encode would only cost CPU and quality.
    static func copiesCameraStream(
        _ codec: VideoCodec, cameraFormat: String, width: Int, height: Int, request: RecordingRequest
    ) -> Bool {
        codec == .h264 && cameraFormat == "h264" && request.crf == nil && request.bitRate == nil
            && request.preset == nil && request.pixelFormat == nil && request.encoder == .auto && width % 2 == 0
            && height % 2 == 0
    }

    /// libx264's options for the request.
    static func x264Options(_ request: RecordingRequest) -> [String: String] {
        // Sliced threads: x264 splits each frame among its threads instead of encoding one frame
        // per thread. A frame leaves the encoder as soon as it is encoded rather than a thread
        // count later, which suits a live recording whose file must be readable up to the last
        // second, and x264 holds one frame in flight instead of one per thread: at 720p with
        // veryfast on two cores, about 30 MB less memory for the same CPU time and a file within
        // 0.2 % of the size (libx264 reads `thread_type` as its `sliced-threads`).
        var options = ["preset": request.preset ?? "veryfast", "thread_type": "slice"]
        if request.bitRate == nil { options["crf"] = "\(request.crf ?? 23)" }
        // x264's VBV (`maxrate`, `bufsize`, in bits): a cap on the rate for a link that carries no
        // more, with crf or a bit rate. The buffer defaults to one second of the cap.
        if let maxRate = request.maxRate {
            options["maxrate"] = "\(maxRate)"
            options["bufsize"] = "\(request.bufferSize ?? maxRate)"
        }
        return options
    }

    /// Muxer options that keep a file readable if the process dies: fragmented MP4 with fragments
    /// of at most half a second, Matroska clusters of at most half a second, every write pushed to
    /// disk. Half, not one: start-up and the encoder's delay also come off what a kill leaves.
    /// The MP4's `moov` waits for the first fragment (`delay_moov`): written then, its edit lists
    /// know each track's first packet, so a killed file shows its video from the first frame (a
    /// reordering encoder's first decode time lies two frames before it) and skips the AAC
    /// priming, as the finished file does. An empty `moov` written up front moved every track to
    /// start at 0, the video two frames behind its audio.
    ///
    /// And WAV readable past 4 GiB: RIFF's sizes are 32 bits, and FFmpeg's wav muxer writes them
    /// truncated unless `rf64=auto`, which reserves a 28-byte `JUNK` chunk after `WAVE` and, at the
    /// trailer of a file past 4 GiB, turns it into RF64's `ds64` with the 64-bit sizes. A smaller
    /// file stays plain RIFF. Segmented WAV takes these options for every file too.
    static func muxerOptions(for container: ContainerFormat) -> [String: String] {
        var options = ["flush_packets": "1"]
        switch container.muxer {
        case "mp4", "mov", "ipod":
            options["movflags"] = "+frag_keyframe+empty_moov+delay_moov+default_base_moof"
            options["frag_duration"] = "500000"
        case "matroska":
            options["cluster_time_limit"] = "500"
        case "wav":
            options["rf64"] = "auto"
        default:
            break
        }
        return options
    }
}
