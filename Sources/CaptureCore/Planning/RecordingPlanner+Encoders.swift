extension RecordingPlanner {
    /// The H.264 encoders a camera's recording tries (`EncoderCandidates`); none for raw or copy.
    ///
    /// x264's own options (preset, crf, the rate cap, a pixel format) ask for x264: with `auto` it
    /// is the only one tried, and a hardware encoder asked for beside them is refused.
    ///
    /// - Throws: `.usage` (64) for x264's options beside a hardware encoder; `.notSupported` (69)
    ///   for a hardware encoder whose device this machine does not have.
    static func encoders(_ request: RecordingRequest, codec: VideoCodec, hardware: HardwareEncoderDevices)
        throws(CaptureError) -> [EncoderCandidate]
    {
        // An encoder asked of raw or copied video is refused with the other H.264 options.
        guard codec == .h264 else { return [] }
        let x264Only: [(Bool, RequestOption)] = [
            (request.preset != nil, .preset), (request.crf != nil, .crf), (request.maxRate != nil, .maxRate),
            (request.bufferSize != nil, .bufferSize), (request.pixelFormat != nil, .pixelFormat),
        ]
        if let option = x264Only.first(where: \.0)?.1 {
            switch request.encoder {
            case .auto, .x264: return [EncoderCandidate(choice: .x264, device: nil)]
            case .vaapi, .v4l2m2m, .nvenc, .qsv:
                throw .usage("\(option) is x264's; \(.encoder, request.encoder.rawValue) takes only \(.bitRate)")
            }
        }
        return try EncoderCandidates.list(request.encoder, devices: hardware)
    }
}
