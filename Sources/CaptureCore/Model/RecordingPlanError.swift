/// Why a request cannot be recorded as asked, found by `RecordingPlanner` before any device opens
/// or any file is touched. Each case carries what a front end needs to word it; `message` words it
/// with the request's options as `RequestOption` values, so a command line names its own flags.
public enum RecordingPlanError: Error, Equatable, Sendable {
    /// A video option without a video source.
    case needsVideo(RequestOption)
    /// An audio option without an audio source.
    case needsAudio(RequestOption)
    /// An x264 option (crf, preset, bit rate) with a codec other than H.264.
    case appliesToH264Only(RequestOption)
    /// A pixel format with a codec that copies the camera's packets.
    case pixelFormatWithCopy
    /// A pixel format FFmpeg does not know.
    case unknownPixelFormat(String)
    /// A pixel format libx264 cannot take as 4:2:0; `takes` lists those it can.
    case h264Needs420(String, takes: [String])
    /// A container that holds only audio (or only video) given a stream of the other kind;
    /// `use` lists the extensions that would hold it.
    case containerHoldsNoVideo(fileExtension: String, use: String)
    case containerHoldsNoAudio(fileExtension: String, use: String)
    /// A codec the container cannot hold; `working` are the codecs it can, `others` the
    /// extensions that hold this codec.
    case videoCodecNotInContainer(VideoCodec, fileExtension: String, working: [String], others: String)
    case audioCodecNotInContainer(AudioCodec, fileExtension: String, working: [String], others: String)
    /// A source's packets (`codec`; `source` says whose: "the camera's") cannot be copied into
    /// this container; `working` are the codecs it can hold instead, `others` the extensions that
    /// hold the packets as they are.
    case copyNotInContainer(fileExtension: String, codec: String, source: String, working: [String], others: String)
    /// Raw pictures in a pixel format this container cannot carry readably; `use` are formats it
    /// carries, `others` the extensions that carry this one.
    case pixelFormatNotInContainer(String, fileExtension: String, use: [String], others: String)
    /// A sample format with an audio codec that chooses its own (AAC, Opus).
    case sampleFormatNotForCodec(AudioCodec)
    /// Camera controls without a V4L2 camera to set them on.
    case controlsNeedCamera
    /// Segments of a recording with no file (only streams).
    case segmentsNeedFile
    /// A retention option (`keep`, `maxTotalSize`) or UTC names without segments.
    case needsSegments(RequestOption)
    /// Several cameras (`option` `.video`) or microphones (`.audio`) for an output that holds one
    /// of each: `output` names it (".y4m files", "an RTMP stream"), `use` the extensions that
    /// hold several.
    case holdsOneOfEach(RequestOption, output: String, use: String)

    /// "use OPTION a or b, or record NAME to .x, .y", without the half that has nothing to name.
    private static func instead(_ option: RequestOption, _ working: [String], _ name: String, _ others: String)
        -> OptionText
    {
        let use: OptionText = working.isEmpty ? "" : "use \(option, working.joined(separator: " or "))"
        let elsewhere = others.isEmpty ? "" : "record \(name) to \(others)"
        return "\(use)\(working.isEmpty || others.isEmpty ? "" : ", or ")\(elsewhere)"
    }

    /// One line, options as `RequestOption` values.
    public var message: OptionText {
        switch self {
        case .needsVideo(let option):
            return "\(option) needs a video source (\(.video))"
        case .needsAudio(let option):
            return "\(option) needs an audio source (\(.audio))"
        case .appliesToH264Only(let option):
            return "\(option) applies to \(.videoCodec, "h264") only"
        case .pixelFormatWithCopy:
            return
                "\(.pixelFormat) cannot apply to \(.videoCodec, "copy"), which writes the camera's packets as they are"
        case .unknownPixelFormat(let name):
            return "unknown pixel format '\(name)' (FFmpeg names, e.g. yuv420p, nv12, yuyv422, bgra)"
        case .h264Needs420(let name, let takes):
            return
                "\(.videoCodec, "h264") records 4:2:0 pixel formats only: \(takes.joined(separator: ", ")); not \(name)"
        case .containerHoldsNoVideo(let ext, let use):
            return ".\(ext) files hold audio only; record video to \(use)"
        case .containerHoldsNoAudio(let ext, let use):
            return ".\(ext) files hold video only; record audio to \(use)"
        case .videoCodecNotInContainer(let codec, let ext, let working, let others):
            return
                ".\(ext) files cannot hold \(codec.rawValue) video; \(Self.instead(.videoCodec, working, codec.rawValue, others))"
        case .audioCodecNotInContainer(let codec, let ext, let working, let others):
            return
                ".\(ext) files cannot hold \(codec.rawValue) audio; \(Self.instead(.audioCodec, working, codec.rawValue, others))"
        case .copyNotInContainer(let ext, let codec, let source, let working, let others):
            let refusal: OptionText = ".\(ext) files cannot hold \(source) \(codec) packets"
            let copyTo = others.isEmpty ? "" : "copy them to \(others)"
            guard !working.isEmpty else { return copyTo.isEmpty ? refusal : "\(refusal); \(copyTo)" }
            return
                "\(refusal); use \(.videoCodec, working.joined(separator: " or "))\(copyTo.isEmpty ? "" : ", or \(copyTo)")"
        case .pixelFormatNotInContainer(let name, let ext, let use, let others):
            let instead: OptionText =
                use.isEmpty ? "" : "use \(.pixelFormat, use.joined(separator: " or "))\(others.isEmpty ? "" : ", or ")"
            let elsewhere = others.isEmpty ? "" : "record \(name) to \(others)"
            return ".\(ext) files cannot hold raw \(name) pictures; \(instead)\(elsewhere)"
        case .sampleFormatNotForCodec(let codec):
            return "\(.sampleFormat) applies to \(.audioCodec, "pcm") and flac; \(codec.rawValue) chooses its own"
        case .controlsNeedCamera:
            return "\(.control) and \(.controlsProfile) need a V4L2 camera as \(.video) (e.g. /dev/video0)"
        case .segmentsNeedFile:
            return
                "\(.segmentTime) and \(.segmentSize) cut a file into segments; give a file name (a template) as the output"
        case .needsSegments(let option):
            return "\(option) applies to segments only (\(.segmentTime) or \(.segmentSize))"
        case .holdsOneOfEach(let option, let output, let use):
            let kind = option == .video ? "camera" : "microphone"
            return "\(output) hold one \(kind); give \(option) once, or record several to \(use)"
        }
    }
}
