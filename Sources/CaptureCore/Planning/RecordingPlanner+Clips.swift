/// Planning event clips (`ClipPlan`).
extension RecordingPlanner {
    /// The clips of a recording with a pre-roll; nil for any other.
    ///
    /// - Throws: `.usage` (64) for a clip option without a pre-roll, times or sizes out of range,
    ///   an output clips cannot go to (segments, an HLS playlist, standard output, only streams, a
    ///   file per device), FLAC, or a level trigger without a microphone or a post-roll.
    static func clips(_ request: RecordingRequest, outputs: OutputPlan) throws(CaptureError) -> ClipPlan? {
        guard let preRoll = request.preRoll else {
            for (given, option) in [
                (request.postRoll != nil, RequestOption.postRoll), (request.preRollBytes != nil, .preRollSize),
                (request.maxClip != nil, .maxClip), (!request.clipTriggers.isEmpty, .trigger),
                (request.triggerHold != nil, .triggerHold),
            ] where given {
                throw .usage("\(option) applies to event clips; add \(.preRoll)")
            }
            return nil
        }
        try checkClipOutput(request, outputs: outputs)
        if !(0...600).contains(preRoll) {
            throw .usage("\(.preRoll) takes 0 to 600 s, not \(DurationValue.text(preRoll))")
        }
        if let postRoll = request.postRoll, !(0.1...DurationValue.longest).contains(postRoll) {
            throw .usage("\(.postRoll) takes 0.1 s or more, not \(DurationValue.text(postRoll))")
        }
        if let maxClip = request.maxClip, maxClip < 1 || maxClip > DurationValue.longest {
            throw .usage("\(.maxClip) takes 1 s or more, not \(DurationValue.text(maxClip))")
        }
        // A clip starts up to a keyframe interval (1 s) before its pre-roll; a limit that does not
        // reach past it and the post-roll would end clips before the moment that triggered them.
        if let maxClip = request.maxClip, maxClip < preRoll + 1 + (request.postRoll ?? 0) {
            let least = DurationValue.text(preRoll + 1 + (request.postRoll ?? 0))
            throw .usage(
                "\(.maxClip) \(DurationValue.text(maxClip)) s would end clips before their trigger's moment and "
                    + "post-roll: it counts from the clip's start, a keyframe up to 1 s before the pre-roll; "
                    + "give at least \(least) s")
        }
        if let bytes = request.preRollBytes, bytes < 1 << 20 {
            throw .usage("\(.preRollSize) takes 1M or more, not \(bytes) bytes")
        }
        try request.retention.validate(segmentBytes: nil)
        try checkBudget(request.retention)
        var level: ClipPlan.LevelTrigger?
        for case .level(let threshold) in request.clipTriggers {
            if request.audio == nil { throw .usage("\(.trigger, "level") listens to a microphone; add \(.audio)") }
            if request.postRoll == nil {
                throw .usage(
                    "\(.trigger, "level") starts a clip each time the sound is loud; add \(.postRoll) to say how long")
            }
            if !(-120...0).contains(threshold) {
                throw .usage("\(.trigger, "level") takes -120 to 0 dBFS, not \(threshold)")
            }
            level = .init(threshold: threshold, hold: request.triggerHold ?? 0.2)
        }
        if request.triggerHold != nil && level == nil {
            throw .usage("\(.triggerHold) is the level trigger's; add \(.trigger, "level:-30dB")")
        }
        if let hold = request.triggerHold, !(0...60).contains(hold) {
            throw .usage("\(.triggerHold) takes 0 to 60000 ms, not \(Int(hold * 1000))")
        }
        return ClipPlan(
            template: try OutputTemplate(outputs.file ?? request.output, utc: request.utc), preRoll: preRoll,
            postRoll: request.postRoll, preRollBytes: request.preRollBytes ?? ClipPlan.defaultPreRollBytes,
            maxClip: request.maxClip, retention: request.retention,
            fromStandardInput: request.clipTriggers.contains(.standardInput), level: level)
    }

    /// Refuses outputs clips cannot go to.
    private static func checkClipOutput(_ request: RecordingRequest, outputs: OutputPlan) throws(CaptureError) {
        guard let file = outputs.file, !outputs.toStandardOutput else {
            throw .usage("event clips are files: give OUTPUT as a file name template (clip-%Y%m%d-%H%M%S.mp4)")
        }
        if request.segmentTime != nil || request.segmentSize != nil {
            throw .usage("event clips and segments are two ways to cut the recording; give \(.preRoll) or segments")
        }
        if outputs.container.muxer == "hls" { throw .usage("\(file): an HLS playlist takes no event clips") }
        if outputs.perDevice(request) { throw .usage("\(file): event clips hold every device; no %{index} or %{name}") }
        if request.audio != nil, (request.audioCodec ?? outputs.container.defaultAudioCodec) == .flac {
            throw .usage(
                "FLAC cannot start mid-stream, as a clip does; record the clips as .wav, or with "
                    + "\(.audioCodec, "pcm") into .mkv")
        }
    }
}
