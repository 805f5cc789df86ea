internal import CFFmpeg
import Foundation

/// Setting up a recording: checks that need no device first (container, codecs, options, the
/// output path), then the devices, decoders, encoders and output streams.
extension Recorder {
    /// Pixel formats the YUV4MPEG muxer writes.
    static let y4mPixelFormats: Set<String> = [
        "yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "yuv411p", "gray", "yuva444p",
        "yuv420p9le", "yuv420p10le", "yuv420p12le", "yuv420p14le", "yuv420p16le", "yuv422p9le", "yuv422p10le",
        "yuv422p12le", "yuv422p14le", "yuv422p16le", "yuv444p9le", "yuv444p10le", "yuv444p12le", "yuv444p14le",
        "yuv444p16le", "gray9le", "gray10le", "gray12le", "gray16le",
    ]

    func prepare() throws(CaptureError) {
        outputPlan = try OutputPlan(request)
        container = outputPlan.container
        var videoName = request.video
        let audioName = request.audio
        if videoName == nil && audioName == nil {
            guard let camera = DeviceDiscovery.list(video: true, audio: false).cameras.first(where: { $0.api == .v4l2 })
            else {
                throw .deviceNotFound(
                    device: "camera", valid: [],
                    hint: "no camera found; record the built-in test pattern with --video test")
            }
            videoName = try DeviceName(parsing: camera.name)
        }
        let videoCodec = videoName.map { _ in request.videoCodec ?? container.defaultVideoCodec ?? .h264 }
        let audioCodec = audioName.map { _ in request.audioCodec ?? container.defaultAudioCodec ?? .aac }
        try checkOptions(videoCodec: videoCodec, hasAudio: audioName != nil)
        if !outputPlan.streamsOnly { try CodecChoice.validate(video: videoCodec, audio: audioCodec, in: container) }
        try outputPlan.checkStreams(video: videoCodec, audio: audioCodec)
        if outputPlan.file != nil { try checkOutputPath() }

        let videoDevice = try videoName.map { name throws(CaptureError) in
            try DeviceResolver.resolve(name, kind: .video)
        }
        let audioDevice = try audioName.map { name throws(CaptureError) in
            try DeviceResolver.resolve(name, kind: .audio)
        }
        // A microphone is probed, not yet opened: what it delivers decides the audio encoder
        // (channels, rate, format) before any device opens for recording.
        let audioSource = try audioDevice.map { device throws(CaptureError) in
            try InputSource.make(device, kind: .audio, request: request)
        }
        if let audioCodec, let source = audioSource, let plan = source.audioPlan {
            _ = try AudioEncoderPlanner.plan(
                codec: audioCodec, container: container,
                input: .init(
                    format: AudioEncoderPlanner.format(ofCodec: plan.codec), sampleRate: plan.outputSampleRate,
                    channels: plan.outputChannels),
                requested: request.sampleFormat, device: source.device.name)
        } else if request.sampleFormat != nil, let audioCodec, audioCodec == .aac || audioCodec == .opus {
            throw .usage(
                "--sample-format applies to --audio-codec pcm and flac; \(audioCodec.rawValue) chooses its own")
        }
        try applyControls(to: videoDevice)
        if let file = outputPlan.file {
            output = try media("preparing \(file)") { () throws(FFmpegError) in
                try OutputContainer(path: file, formatName: container.muxer)
            }
        }
        streams = makeStreamOutputs()
        if let videoDevice, let videoCodec { try setUpVideo(videoDevice, codec: videoCodec) }
        if let audioSource, let audioCodec { try setUpAudio(audioSource, codec: audioCodec) }
        muxerOptions = Self.muxerOptions(for: container)
        try connectStreams()
    }

    /// Options that only some codecs take, and values FFmpeg would reject late.
    private func checkOptions(videoCodec: RecordingRequest.VideoCodec?, hasAudio: Bool) throws(CaptureError) {
        if videoCodec == nil {
            for (given, name) in [
                (request.frames != nil, "--frames"), (request.videoCodec != nil, "--codec"),
                (request.videoSize != nil, "--video-size"), (request.frameRate != nil, "--framerate"),
                (request.pixelFormat != nil, "--pixel-format"), (request.inputFormat != nil, "--input-format"),
            ] where given {
                throw .usage("\(name) needs a video source (--video)")
            }
        }
        if !hasAudio {
            for (given, name) in [
                (request.audioCodec != nil, "--audio-codec"), (request.sampleRate != nil, "--sample-rate"),
                (request.channels != nil, "--channels"), (request.sampleFormat != nil, "--sample-format"),
            ] where given {
                throw .usage("\(name) needs an audio source (--audio)")
            }
        }
        if videoCodec != .h264 {
            for (given, name) in [
                (request.crf != nil, "--crf"), (request.preset != nil, "--preset"),
                (request.bitRate != nil, "--bitrate"), (request.maxRate != nil, "--maxrate"),
                (request.bufferSize != nil, "--bufsize"),
            ]
            where given {
                throw .usage("\(name) applies to --codec h264 only")
            }
        }
        if videoCodec == .copy && request.pixelFormat != nil {
            throw .usage("--pixel-format cannot apply to --codec copy, which writes the camera's packets as they are")
        }
        if let name = request.pixelFormat, av_get_pix_fmt(name) == AV_PIX_FMT_NONE {
            throw .usage("unknown pixel format '\(name)' (FFmpeg names, e.g. yuv420p, nv12, yuyv422, bgra)")
        }
        if videoCodec == .h264, let name = request.pixelFormat {
            let format = av_get_pix_fmt(name)
            let takes = Self.x264Formats420
            if !takes.contains(format) {
                let names = takes.compactMap { repairedString(av_get_pix_fmt_name($0)) }
                throw .usage(
                    "--codec h264 records 4:2:0 pixel formats only: \(names.joined(separator: ", ")); not \(name)")
            }
        }
    }

    /// The 4:2:0 formats libx264 takes (`AVCodec.pix_fmts` with half-size chroma).
    static var x264Formats420: [AVPixelFormat] {
        Encoder.pixelFormats(of: "libx264").filter { format in
            guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
            return descriptor.pointee.log2_chroma_w == 1 && descriptor.pointee.log2_chroma_h == 1
                && descriptor.pointee.nb_components >= 3
        }
    }

    /// An existing output is refused without --force, and one that cannot be created is refused,
    /// before any device is opened.
    private func checkOutputPath() throws(CaptureError) {
        let path = filePath
        var status = stat()
        if lstat(path, &status) == 0 {
            // --force cannot replace a directory, so saying "use --force" would mislead.
            if status.st_mode & S_IFMT == S_IFDIR { throw .cannotCreate(path: path, reason: "it is a directory") }
            if !request.force { throw .outputExists(path: path) }
        }
        let directory = (path as NSString).deletingLastPathComponent
        let parent = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .cannotCreate(path: path, reason: "the directory \(parent) does not exist")
        }
        if access(parent, W_OK) != 0 {
            throw .cannotCreate(path: path, reason: "the directory \(parent) is not writable")
        }
    }

    private func openInput(_ source: InputSource, kind: Device.Kind) throws(CaptureError) -> (
        InputContainer, Int, MediaStreamInfo
    ) {
        let input = try source.open(interrupt: stop.interrupt)
        if !source.live && kind == .video {
            // An unpaced lavfi graph does not declare its frame rate until some frames are read.
            do throws(FFmpegError) { try input.findStreamInfo() } catch {
                throw InputSource.captureError(error, device: source.device, kind: kind)
            }
        }
        let wanted: MediaStreamInfo.Kind = kind == .video ? .video : .audio
        guard let index = input.firstStream(of: wanted) else {
            let what = kind == .video ? "video" : "audio"
            if source.device.api == .lavfi { throw .usage("\(source.device.name): the lavfi graph gives no \(what)") }
            throw .notSupported(device: source.device.name, reason: "gives no \(what)")
        }
        return (input, index, input.info(of: index))
    }

    private func setUpVideo(_ device: Device, codec: RecordingRequest.VideoCodec) throws(CaptureError) {
        let source = try InputSource.make(device, kind: .video, request: request)
        var (input, index, info) = try openInput(source, kind: .video)
        if source.live && !info.isIntraOnly {
            // A camera's own H.264 comes without extradata: the SPS and PPS travel in-band before
            // each keyframe. Reading up to the first keyframe (`avformat_find_stream_info`, which
            // runs FFmpeg's extract_extradata) gives MP4 and Matroska the avcC their header needs;
            // the packets read stay queued in the demuxer and are recorded.
            do throws(FFmpegError) { try input.findStreamInfo() } catch {
                throw InputSource.captureError(error, device: source.device, kind: .video)
            }
            info = input.info(of: index)
        }
        let codec = Self.copiesCameraStream(codec, input: info, request: request) ? .copy : codec
        let width = info.width ?? 0
        let height = info.height ?? 0
        // The driver may quietly apply another size or rate than asked; record nothing rather than
        // something else.
        if let mode = source.mode {
            if mode.width != width || mode.height != height {
                throw .notSupported(
                    device: source.url, reason: "asked for \(mode) but the driver applied \(width)x\(height)")
            }
            if let rate = mode.frameRate, !mode.rateFromInput, let applied = info.frameRate,
                abs(applied.doubleValue - rate.doubleValue) > rate.doubleValue * 0.01
            {
                throw .notSupported(
                    device: source.url,
                    reason: "asked for \(mode) but the driver applied \(applied.decimalDescription) fps")
            }
        }
        var rate = info.frameRate ?? source.frameRate ?? request.frameRate ?? Rational(30, 1)
        if rate.doubleValue > 1000 || rate.doubleValue <= 0 { rate = Rational(30, 1) }
        let inputFormat = info.pixelFormat.map { av_get_pix_fmt($0) } ?? AV_PIX_FMT_NONE
        let stream: Int
        var decoder: Decoder?
        var encoder: Encoder?
        var target = (width: width, height: height, format: inputFormat)
        switch codec {
        case .copy:
            guard let id = Optional(input.stream(index).pointee.codecpar.pointee.codec_id),
                CodecChoice.holds(container, id)
            else {
                throw .usage(
                    ".\(container.fileExtension) files cannot hold the camera's \(info.codec) packets; use --codec h264 or raw, or .mkv"
                )
            }
            stream = try media("adding the video stream") { () throws(FFmpegError) in
                try addOutputStream(copying: input, stream: index, timeBase: rate.inverted.av)
            }
        case .h264, .raw:
            decoder = try media("opening the video decoder") { () throws(FFmpegError) in
                try Decoder(input: input, stream: index)
            }
            if codec == .h264 {
                target.format = request.pixelFormat.map { av_get_pix_fmt($0) } ?? AV_PIX_FMT_YUV420P
                let even = (width: max(2, width & ~1), height: max(2, height & ~1))
                if even.width != width || even.height != height {
                    onWarning(
                        "\(width)x\(height) is an odd frame size, which H.264 in 4:2:0 cannot hold; "
                            + "scaling to \(even.width)x\(even.height)")
                    target.width = even.width
                    target.height = even.height
                }
            } else {
                if let name = request.pixelFormat { target.format = av_get_pix_fmt(name) }
                if target.format == AV_PIX_FMT_NONE { target.format = AV_PIX_FMT_YUV420P }
                let name = repairedString(av_get_pix_fmt_name(target.format)) ?? "?"
                if container.muxer == "yuv4mpegpipe" && !Self.y4mPixelFormats.contains(name) {
                    throw .usage(
                        ".y4m files cannot hold \(name) pictures; use --pixel-format yuv420p, yuv422p or yuv444p, or record to .nut or .mkv"
                    )
                }
            }
            var settings = Encoder.VideoSettings(
                width: target.width, height: target.height, pixelFormat: target.format, frameRate: rate,
                keyframeInterval: codec == .h264 ? max(1, Int(2 * rate.doubleValue)) : 1,
                bitRate: request.bitRate ?? 0, options: codec == .h264 ? x264Options() : [:])
            if codec == .h264 {
                // The scaler writes limited-range YUV (a JPEG's full range converted, a camera's
                // own YUV kept); JPEG's matrix is BT.601. Tagged, players need not guess.
                settings.colorRange = AVCOL_RANGE_MPEG
                if info.codec == "mjpeg" { settings.colorSpace = AVCOL_SPC_SMPTE170M }
            }
            let name = CodecChoice.encoderName(codec, in: container)
            let made = try media("opening the \(name) encoder") { () throws(FFmpegError) in
                try Encoder(video: name, settings, globalHeader: wantsGlobalHeader)
            }
            encoder = made
            stream = try media("adding the video stream") { () throws(FFmpegError) in
                try addOutputStream(encoder: made)
            }
        }
        let path = VideoPath(
            stream: stream, rate: rate, decoder: decoder, encoder: encoder, width: target.width, height: target.height,
            pixelFormat: target.format, frameLimit: request.frames, input: info)
        if codec == .raw && container.muxer != "yuv4mpegpipe" && target == (width, height, inputFormat) {
            path.passThroughSize = Self.passThroughSize(input.stream(index).pointee.codecpar.pointee)
        }
        // A camera's lane absorbs the encoder's hiccups (a slower frame, a keyframe) before it
        // drops anything. An unpaced source waits for the loop anyway: two frames keep its reader
        // one frame ahead, and a deeper queue would only hold more 1.4 MB pictures.
        let lane = queue.addLane(live: source.live, dropsOldest: source.live, capacity: source.live ? 8 : 2)
        readers.append(
            InputReader(
                input: input, stream: index, source: source, lane: lane, queue: queue, interrupt: stop.interrupt))
        video = (path, lane, source, info)
    }

    /// True when `--codec h264` from a camera that sends H.264 itself writes the camera's stream as
    /// it is: nothing asks for re-encoding (no --crf, --bitrate, --preset or --pixel-format), so a
    /// decode and a second lossy encode would only cost CPU and quality.
    static func copiesCameraStream(
        _ codec: RecordingRequest.VideoCodec, input: MediaStreamInfo, request: RecordingRequest
    ) -> Bool {
        codec == .h264 && input.codec == "h264" && request.crf == nil && request.bitRate == nil
            && request.preset == nil && request.pixelFormat == nil
            && (input.width ?? 1) % 2 == 0 && (input.height ?? 1) % 2 == 0
    }

    /// The packet size of a raw input whose packets are exactly what the rawvideo encoder would
    /// write for the same size and pixel format (planes packed without padding), or nil.
    ///
    /// The rawvideo decoder reinterprets a few inputs (palettes, a codec tag naming another
    /// layout, bits per sample); those go through it.
    private static func passThroughSize(_ parameters: AVCodecParameters) -> Int? {
        let format = AVPixelFormat(rawValue: parameters.format)
        guard parameters.codec_id == AV_CODEC_ID_RAWVIDEO, format != AV_PIX_FMT_NONE,
            let descriptor = av_pix_fmt_desc_get(format),
            descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM)
                == 0,
            parameters.codec_tag == 0 || parameters.codec_tag == avcodec_pix_fmt_to_codec_tag(format)
        else { return nil }
        let size = av_image_get_buffer_size(format, parameters.width, parameters.height, 1)
        return size > 0 ? Int(size) : nil
    }

    private func x264Options() -> [String: String] {
        // Sliced threads: x264 splits each frame among its threads instead of encoding one frame
        // per thread. A frame leaves the encoder as soon as it is encoded rather than a thread
        // count later, which suits a live recording whose file must be readable up to the last
        // second, and x264 holds one frame in flight instead of one per thread: at 720p with
        // veryfast on two cores, about 30 MB less memory for the same CPU time and a file within
        // 0.2 % of the size (libx264 reads `thread_type` as its `sliced-threads`).
        var options = ["preset": request.preset ?? "veryfast", "thread_type": "slice"]
        if request.bitRate == nil { options["crf"] = "\(request.crf ?? 23)" }
        options.merge(vbvOptions) { _, new in new }
        return options
    }

    private func setUpAudio(_ source: InputSource, codec: RecordingRequest.AudioCodec) throws(CaptureError) {
        let (input, index, info) = try openInput(source, kind: .audio)
        let parameters = input.stream(index).pointee.codecpar.pointee
        let plan = try AudioEncoderPlanner.plan(
            codec: codec, container: container,
            input: .init(
                format: AudioEncoderPlanner.format(
                    ofCodec: repairedString(avcodec_get_name(parameters.codec_id)) ?? ""),
                sampleRate: source.audioPlan?.outputSampleRate ?? request.sampleRate ?? Int(parameters.sample_rate),
                channels: source.audioPlan?.outputChannels ?? request.channels ?? Int(parameters.ch_layout.nb_channels)),
            requested: request.sampleFormat, device: source.device.name)
        let delivered = Int(parameters.ch_layout.nb_channels)
        if delivered != plan.layout.channels && !ChannelLayout.remixes(delivered, plan.layout.channels) {
            // libswresample mixes between named layouts only; no file exists yet.
            let named = (1...64).filter { ChannelLayout.standard($0).mask != nil }
            throw .notSupported(
                device: source.device.name,
                reason:
                    "it delivers \(delivered == 1 ? "1 channel" : "\(delivered) channels"), which cannot be mixed to "
                    + "\(plan.layout.channels): FFmpeg mixes "
                    + "between \(AudioEncoderPlanner.describe(named)) channels only; leave out --channels to record all "
                    + "\(delivered), or ask for one of those counts")
        }
        for note in plan.notes { onWarning(note) }
        audioEncoderPlan = plan
        let name = plan.encoder
        var settings = Encoder.AudioSettings(
            sampleRate: plan.sampleRate, layout: plan.layout, sampleFormat: plan.sampleFormat, bitRate: plan.bitRate,
            options: plan.options)
        settings.bitsPerRawSample = plan.bitsPerRawSample
        let decoder = try media("opening the audio decoder") { () throws(FFmpegError) in
            try Decoder(input: input, stream: index)
        }
        let encoder = try media("opening the \(name) encoder") { () throws(FFmpegError) in
            try Encoder(audio: name, settings, globalHeader: wantsGlobalHeader)
        }
        let stream = try media("adding the audio stream") { () throws(FFmpegError) in
            try addOutputStream(encoder: encoder)
        }
        let path = try AudioPath(stream: stream, decoder: decoder, encoder: encoder)
        let lane = queue.addLane(live: source.live, dropsOldest: false, capacity: source.live ? 512 : 32)
        readers.append(
            InputReader(
                input: input, stream: index, source: source, lane: lane, queue: queue, interrupt: stop.interrupt))
        audio = (path, lane, source, info)
    }

    /// Muxer options that keep a file readable if the process dies: fragmented MP4 with fragments
    /// of at most half a second, Matroska clusters of at most half a second, every write pushed to
    /// disk. Half, not one: start-up and the encoder's delay also come off what a kill leaves.
    static func muxerOptions(for container: ContainerFormat) -> [String: String] {
        var options = ["flush_packets": "1"]
        switch container.muxer {
        case "mp4", "mov", "ipod":
            options["movflags"] = "+frag_keyframe+empty_moov+default_base_moof+negative_cts_offsets"
            options["frag_duration"] = "500000"
        case "matroska":
            options["cluster_time_limit"] = "500"
        default:
            break
        }
        return options
    }
}
