internal import CFFmpeg

/// Where a recording goes: at most one file and any number of network streams, all fed by one
/// capture and one encode; decided from the request's outputs and container format before any
/// device opens.
public struct OutputPlan: Sendable {
    /// One network output.
    public struct Stream: Sendable, Hashable {
        public var target: OutputTarget
        /// The muxer: `flv` for RTMP, `rtsp` for RTSP, `mpegts` for SRT, or the one the request names.
        public var muxer: String
    }

    /// The file to write, if any.
    public var file: String?
    /// The container that decides the codecs: the file's, or for a stream-only recording the
    /// first stream's. With streams, codecs not given default to H.264 and AAC, which every
    /// server takes.
    public var container: ContainerFormat
    public var streams: [Stream]

    /// True when the file's name holds a device field: one file per device (`DeviceFiles`).
    func perDevice(_ request: RecordingRequest) -> Bool {
        guard let file, !toStandardOutput else { return false }
        // In a template of segments or clips, %d is strftime's day of the month.
        return DeviceFiles.isTemplate(file, segments: Self.namesSeries(request))
    }

    /// True when the file's name is a template of a series (segments or clips), whose fields are
    /// strftime's and `%n`: what segments or clips ask for, or options of theirs that are
    /// refused without them (with that refusal, not one of the name's fields).
    static func namesSeries(_ request: RecordingRequest) -> Bool {
        request.segmentTime != nil || request.segmentSize != nil || request.preRoll != nil
            || request.postRoll != nil || request.maxClip != nil || !request.retention.isEmpty
    }

    /// Plans the outputs of `request`.
    ///
    /// - Throws: `CaptureError.usage` (64) for a second file, an unknown container format, a URL or
    ///   file name that says no container, or a codec a stream cannot carry.
    public init(_ request: RecordingRequest) throws(CaptureError) {
        var file: String?
        var fileContainer: ContainerFormat?
        var streams: [Stream] = []
        for (position, text) in ([request.output] + request.also).enumerated() {
            let target = OutputTarget(text)
            let format = position == 0 ? request.format : nil
            if target.isNetwork {
                guard let stream = try Self.stream(to: target, format: format) else { continue }
                if streams.contains(where: { $0.target.url == target.url }) {
                    throw .usage("\(target.printable) is given twice (the same URL, stream key included)")
                }
                streams.append(stream)
                continue
            }
            try Self.checkFile(text, position: position, format: format, earlier: file)
            file = text
            fileContainer = try Self.container(ofFile: text, format: format)
        }
        self.streams = streams
        if var file, file != "-" {
            let timed = Self.namesSeries(request) || file.lowercased().hasSuffix(".m3u8")
            try DeviceFiles.checkFields(file, timed: timed)
            // The name of one file: `%%` writes a `%`, as in a file per device's name.
            let name = file.pathLastComponent
            if !timed && !DeviceFiles.isTemplate(file, segments: false) && name.contains("%%") {
                file = String(file.dropLast(name.count)) + name.replacing("%%", with: "%")
            }
            self.file = file
        } else {
            self.file = file
        }
        guard let fileContainer else {
            let muxer = streams[0].muxer
            container = ContainerFormat(
                fileExtension: muxer, muxer: muxer, defaultVideoCodec: .h264, defaultAudioCodec: .aac)
            return
        }
        container = fileContainer
        guard !streams.isEmpty else { return }
        // FFmpeg's WAV muxer takes AAC, but almost no player reads it there.
        if fileContainer.muxer == "wav" {
            throw .usage(
                "a .wav file holds PCM, which no stream carries, and the file and the streams share one encode; "
                    + "record the file as .m4a (or .mkv) alongside a stream")
        }
        container = ContainerFormat(
            fileExtension: fileContainer.fileExtension, muxer: fileContainer.muxer,
            defaultVideoCodec: fileContainer.holdsVideo ? .h264 : nil,
            defaultAudioCodec: fileContainer.holdsAudio ? .aac : nil)
    }

    /// The stream to a network `target`, in the muxer `format` names or its scheme implies; nil
    /// when neither names one.
    private static func stream(to target: OutputTarget, format: String?) throws(CaptureError) -> Stream? {
        if let problem = target.problem { throw .usage("\(target.printable): \(problem)") }
        // A file's extension names a muxer as well (`mkv` is Matroska's).
        let named = format.map { name in
            ContainerFormat.all.first { $0.fileExtension == name.lowercased() }?.muxer ?? name.lowercased()
        }
        guard let muxer = named ?? target.impliedMuxer else { return nil }
        guard av_guess_format(muxer, nil, nil) != nil else {
            throw .usage("\(.format): FFmpeg has no muxer named '\(muxer)'; for a stream use flv or mpegts")
        }
        if target.scheme?.hasPrefix("rtmp") == true && muxer != "flv" {
            throw .usage("\(target.printable): RTMP carries FLV only; leave out \(.format) or give flv")
        }
        // RTSP is a session, not a container: only its own muxer speaks it, and it speaks nothing else.
        if (target.scheme == "rtsp") != (muxer == "rtsp") {
            throw .usage(
                target.scheme == "rtsp"
                    ? "\(target.printable): RTSP is written by FFmpeg's rtsp muxer; leave out \(.format)"
                    : "\(.format) rtsp needs an rtsp:// URL, not \(target.printable)")
        }
        if ["mp4", "mov", "ipod", "ismv"].contains(muxer) {
            throw .usage("\(.format) \(muxer) writes its index at the end of a file and cannot stream; use mpegts")
        }
        return Stream(target: target, muxer: muxer)
    }

    /// Refuses a file output that cannot be: a URL of a kind not recorded to, standard output
    /// anywhere but first or without a container named, a second file.
    private static func checkFile(_ text: String, position: Int, format: String?, earlier: String?)
        throws(CaptureError)
    {
        if text.contains("://") {
            throw .usage(
                "'\(OutputTarget.scrubbed(text))': record streams to rtmp://, rtmps://, rtsp:// and srt:// URLs "
                    + "(and udp:// or tcp:// with MPEG-TS); other URLs are not outputs")
        }
        if text == "-" && (position > 0 || format == nil) {
            throw .usage(
                position > 0
                    ? "'-' (standard output) can only be the recording's first output"
                    : "'-' writes to standard output: name the container with \(.format) (nut, mkv, mpegts ...)")
        }
        if let earlier {
            throw .usage(
                "a recording writes one file ('\(earlier)' and '\(text)'); give the other outputs as stream URLs")
        }
    }

    /// The container of the file `path`: the one `format` names (a muxer or an extension), else
    /// the one its extension names.
    private static func container(ofFile path: String, format: String?) throws(CaptureError) -> ContainerFormat {
        guard let format else { return try ContainerFormat.forPath(path) }
        guard
            let named = ContainerFormat.all.first(where: {
                $0.muxer == format.lowercased() || $0.fileExtension == format.lowercased()
            })
        else {
            throw .usage(
                "\(.format) for a file takes one of \(ContainerFormat.all.map(\.muxer).joined(separator: ", ")), not '\(format)'"
            )
        }
        return named
    }

    /// True when the "file" is standard output (`-`): written as a pipe, never moved into place
    /// or read back.
    public var toStandardOutput: Bool { file == "-" }

    /// True when the recording has no file, only streams.
    public var streamsOnly: Bool { file == nil }

    /// What the streaming containers carry, as servers and players take it: FFmpeg's MPEG-TS muxer
    /// declares no codec table, and FLV's table lists codecs no server expects.
    static let carried: [String: (video: Set<VideoCodec>, audio: Set<AudioCodec>)] = [
        "flv": ([.h264], [.aac]),
        // FFmpeg's RTP packetizers, as media servers (MediaMTX, go2rtc) take them.
        "rtsp": ([.h264], [.aac, .opus]),
        "mpegts": ([.h264], [.aac, .opus]),
    ]

    /// Checks that every stream can carry the chosen codecs (FLV: H.264 and AAC; MPEG-TS: H.264,
    /// AAC, Opus; another container: what FFmpeg says it holds).
    func checkStreams(video: VideoCodec?, audio: AudioCodec?) throws(CaptureError) {
        for stream in streams {
            let carrier = ContainerFormat(
                fileExtension: stream.muxer, muxer: stream.muxer, defaultVideoCodec: .h264, defaultAudioCodec: .aac)
            let known = Self.carried[stream.muxer]
            if let video {
                let carries =
                    known.map { $0.video.contains(video) }
                    ?? (CodecChoice.codecID(video, in: carrier).map { CodecChoice.holds(carrier, $0) } ?? false)
                if !carries {
                    throw .usage(
                        "\(stream.target.printable): \(stream.muxer) cannot carry \(video.rawValue) video; use \(.videoCodec, "h264")"
                    )
                }
            }
            if let audio {
                let carries =
                    known.map { $0.audio.contains(audio) } ?? CodecChoice.holds(carrier, CodecChoice.codecID(audio))
                if !carries {
                    throw .usage(
                        "\(stream.target.printable): \(stream.muxer) cannot carry \(audio.rawValue) audio; use \(.audioCodec, "aac")"
                    )
                }
            }
        }
    }
}

extension OutputTarget {
    /// `text` as it may be printed, whatever it is.
    static func scrubbed(_ text: String) -> String {
        guard let range = text.firstRange(of: "://") else { return text }
        let scheme = String(text[..<range.lowerBound]).lowercased()
        return OutputTarget(text).isNetwork ? OutputTarget(text).printable : scheme + "://***"
    }
}
