/// The planner's side of several cameras and microphones: each device named once, each asked
/// what the request gives it, and outputs that hold one of each refused.
extension RecordingPlanner {
    /// Resolves the devices of `kind` a request names, refusing one named twice (by any of its
    /// names): it cannot stream to two tracks at once.
    ///
    /// - Throws: the resolver's errors; `.usage` (64) for a device named twice.
    static func resolve(_ names: [DeviceName], kind: Device.Kind) throws(CaptureError) -> [Device] {
        var devices: [Device] = []
        for name in names {
            let device = try DeviceResolver.resolve(name, kind: kind)
            if let earlier = devices.firstIndex(where: { $0.sameDevice(as: device) }) {
                let option = kind == .video ? RequestOption.video : .audio
                let given = [names[earlier], name].map {
                    $0.description == device.name ? "\($0)" : "\($0) (\(device.name))"
                }
                throw .usage(
                    "\(given[0]) and \(given[1]) are the same device; give each device to \(option) once")
            }
            devices.append(device)
        }
        return devices
    }

    /// The containers that hold several video or audio tracks; the others (and streams) one of each.
    static let holdingSeveral: Set<String> = ["mp4", "mov", "matroska", "nut", "avi", "mpegts", "ipod"]

    /// Refuses several cameras or microphones for an output that holds one of each: a recording
    /// that only streams (FLV, RTSP and SRT servers take one of each), HLS, and files such as
    /// .y4m, .h264, .wav. Beside a file, a stream carries the first camera and microphone.
    ///
    /// - Throws: `.plan(.holdsOneOfEach)` (64).
    static func checkSeveral(_ request: RecordingRequest, outputs: OutputPlan) throws(CaptureError) {
        try checkStreamChoice(request, outputs: outputs)
        // Each device's file of a per-device name holds that device only.
        if outputs.perDevice(request) { return }
        for (several, option) in [
            (request.cameras.count > 1, RequestOption.video), (request.microphones.count > 1, .audio),
        ]
        where several {
            let holds = { (format: ContainerFormat) in option == .video ? format.holdsVideo : format.holdsAudio }
            // A container that holds none of this kind is refused for that by the checks after.
            guard outputs.file == nil || holds(outputs.container) else { continue }
            let use = ContainerFormat.extensions(where: { holdingSeveral.contains($0.muxer) && holds($0) })
            // Beside a file, a stream carries the first camera and microphone (`StreamSelection`).
            if outputs.file == nil, let stream = outputs.streams.first {
                throw .plan(.holdsOneOfEach(option, output: "streams (\(stream.muxer))", use: use))
            }
            // A cut needs a keyframe of every camera at one instant; the encoders are asked one
            // by one, so a second camera's segment would start without one.
            if option == .video && (request.segmentTime != nil || request.segmentSize != nil) {
                throw .usage(
                    "segments of several cameras in one file are not supported: a segment must start with a "
                        + "keyframe of every camera; give each camera its series with %{index} in the name "
                        + "(cam%{index}-%n.mkv), or record one file")
            }
            if !holdingSeveral.contains(outputs.container.muxer) {
                throw .plan(.holdsOneOfEach(option, output: ".\(outputs.container.fileExtension) files", use: use))
            }
        }
    }

    /// Refuses a choice of what the streams carry without a stream, or of a device the recording
    /// does not have.
    ///
    /// - Throws: `.usage` (64).
    static func checkStreamChoice(_ request: RecordingRequest, outputs: OutputPlan) throws(CaptureError) {
        for (chosen, option, count, kind) in [
            // A request that names no device records the default camera.
            (
                request.streamCamera, RequestOption.streamVideo,
                request.video == nil && request.audio == nil ? 1 : request.cameras.count, "camera"
            ),
            (request.streamMicrophone, .streamAudio, request.microphones.count, "microphone"),
        ] {
            guard let chosen else { continue }
            if outputs.streams.isEmpty {
                throw .usage("\(option) chooses what a network stream carries; the recording has none")
            }
            if chosen >= count {
                let have =
                    count == 0 ? "no \(kind)" : count == 1 ? "one \(kind) (0)" : "\(count) \(kind)s (0 to \(count - 1))"
                throw .usage("\(option, "\(chosen)"): the recording has \(have)")
            }
        }
    }

    /// What is asked of each of `count` surveyed cameras: the request's own (a survey made for a
    /// request that names no camera holds the default camera, asked as the first would be).
    static func cameraRequests(_ request: RecordingRequest, count: Int) -> [CameraRequest] {
        let first = CameraRequest(
            .test, videoSize: request.videoSize, frameRate: request.frameRate, inputFormat: request.inputFormat)
        let asked = request.cameras.isEmpty ? [first] : request.cameras
        return Array(asked.prefix(count))
    }

    /// What is asked of each of `count` surveyed microphones.
    static func microphoneRequests(_ request: RecordingRequest, count: Int) -> [MicrophoneRequest] {
        let first = MicrophoneRequest(.test, sampleRate: request.sampleRate, channels: request.channels)
        let asked = request.microphones.isEmpty ? [first] : request.microphones
        return Array(asked.prefix(count))
    }

}
