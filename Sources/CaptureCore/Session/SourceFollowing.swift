/// A camera whose source changed mode in a recording cut into segments (`SourceFollower`): its
/// old mode's stream ends with its last frame, and the next segment starts with the new mode's
/// first, encoded by a chain built for that mode.
extension RecordingSession {
    /// True when a camera whose source changes mode is followed into the next segment: one
    /// camera, encoded or raw (a copy keeps the camera's own parameters), into a series of files
    /// and nothing else (a single file, a network stream or a clip cannot change a stream's size
    /// or rate midway), without a preview. Otherwise the change ends the recording.
    var followsSourceChanges: Bool {
        plan.videos.count == 1 && plan.videos.allSatisfy { $0.codec != .copy } && preview == nil
            && !outputs.outputs.isEmpty && outputs.outputs.allSatisfy(\.followsStreamChanges)
    }

    /// The follower of a camera's source changes, for a recording cut into files: one that
    /// follows them (`followsSourceChanges`), or says why it does not; nil for one file.
    var sourceFollower: SourceFollower? {
        guard plan.segments != nil || plan.playlist != nil || plan.clips != nil else { return nil }
        return SourceFollower(
            refusal: followsSourceChanges
                ? nil
                : "a source change is followed into the next segment only for one camera, encoded or raw, "
                    + "written to a series of files alone: no preview, network stream, HLS playlist or event clips")
    }

    /// Ends the old mode's stream of each camera whose source changed, once the loop has taken
    /// every packet read before the change: its encoder drains into the current segment and lets
    /// go of its last picture, so that the old mode's buffers go back to the camera, which is then
    /// opened at its new mode. Says so, once a change.
    ///
    /// - Throws: the encoder's or the muxer's errors.
    func endChangedModes() throws(CaptureError) {
        for track in tracks.cameras where queue.waiting(lane: track.lane) == 0 { try endChangedMode(track) }
    }

    /// Ends `track`'s old mode when its source's change was announced and not yet acted on.
    private func endChangedMode(_ track: Track) throws(CaptureError) {
        guard let change = track.reader.follower?.takeAnnouncement(), let video = track.video else { return }
        try video.finish { (packet, stream) throws(CaptureError) in try self.mux(packet, stream: stream) }
        let reason = "its source changed from \(change.from) to \(change.to)"
        onWarning("\(track.device): \(reason); the next segment records the new mode")
        onEvent?(RecordingEvent(event: .sourceChanged, device: track.device, reason: reason))
    }

    /// Builds the chain of a camera's new mode at the first packet read in it (of `generation`):
    /// decoder, encoder (the one chosen at the start, x264 with the same preset) and converter at
    /// the size and rate the camera streams now. The outputs feed the camera's stream from the
    /// new encoder, and the series starts its next segment with the frame of that packet. The
    /// old chain stays with the track for the summary's counts.
    ///
    /// - Throws: `.failed` when the decoder or encoder does not open, or the outputs cannot take
    ///   the new stream; the plan's errors for a mode the container cannot hold raw.
    func followSource(_ track: Track, generation: Int) throws(CaptureError) {
        guard let reopened = track.reader.follower?.takeReopened(generation: generation), let old = track.video,
            var planned = plan.videos.first(where: { $0.device == track.source.device }),
            let index = reopened.input.firstStream(of: .video)
        else { return }
        // The old mode's packets may all be gone before the loop got to end it between packets.
        try endChangedMode(track)
        planned.source = reopened.source
        let info = reopened.input.info(of: index)
        let settled = try VideoNegotiation.negotiate(
            planned, input: info, container: plan.container, withAudio: plan.audio != nil,
            keyframeSeconds: plan.clips == nil ? 2 : 1)
        guard let settings = settled.settings else { return }
        let decoder = try media("opening the video decoder") { () throws(FFmpegError) in
            try Decoder(input: reopened.input, stream: index)
        }
        let opened = try openEncoder(
            planned, settings: settings,
            choice: track.encoderChoice ?? EncoderChoice(candidates: planned.encoders, budget: track.encoderBudget))
        try media("adding the video stream of the new mode") { () throws(FFmpegError) in
            try replaceOutputStream(old.stream, encoder: opened.encoder, device: track.source.device)
        }
        let written = track.videoModes.reduce(0) { $0 + $1.written }
        let path = VideoPath(
            stream: old.stream, rate: settled.rate, decoder: decoder,
            encoder: EncodedStream(encoder: opened.encoder, stream: old.stream, kind: "video", packetDuration: 1),
            converter: PictureConverter(
                width: settled.width, height: settled.height, pixelFormat: opened.pixelFormat,
                keepsFullRange: opened.keepsFullRange),
            frameLimit: plan.frameLimit.map { max(1, $0 - written) }, input: info)
        path.fillsEmptySlots = old.fillsEmptySlots
        if settled.passesThrough { path.passThroughSize = reopened.input.rawPassThroughSize(of: index) }
        (path.cutPoint, path.endTime, path.grid) = (old.cutPoint, old.endTime, old.grid)
        track.earlierModes.append(old)
        (track.chain, track.input, track.generation) = (.video(path), info, generation)
        track.encoderName = opened.encoder.name
    }
}
