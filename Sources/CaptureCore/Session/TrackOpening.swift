import Dispatch
import FoundationEssentials
import Synchronization

/// Opening a plan's devices: each input, its decoder, converter and encoder, its output stream,
/// its lane and reader.
extension RecordingSession {
    /// Opens `source` and finds its stream of `kind`.
    private func openInput(_ source: InputSource, kind: Device.Kind) throws(CaptureError) -> (
        InputContainer, Int, MediaStreamInfo
    ) {
        // Cameras opened before this one on its USB controller: what a bandwidth refusal names.
        let controller = source.device.usbController
        let busMates = tracks.cameras.map(\.source.device).filter {
            controller != nil && $0.usbController == controller
        }
        let input = try source.open(interrupt: stop.interrupt, busMates: busMates.map(\.name))
        if !source.live && kind == .video {
            // An unpaced lavfi graph does not declare its frame rate until some frames are read.
            do throws(FFmpegError) { try input.findStreamInfo() } catch {
                throw InputSource.captureError(error, device: source.device)
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

    /// Reads a live inter-frame stream up to its first keyframe (`avformat_find_stream_info`),
    /// within the stall timeout and until a stop.
    ///
    /// FFmpeg's H.264 parser, fed bytes in which it finds no start code, reads the device again
    /// and again without returning to a point that polls the interrupt callback; a camera that
    /// sends only such bytes would hold the caller for ever, deaf to a stop. So the search runs
    /// on a thread of its own, which the caller leaves behind when the timeout passes or a stop
    /// comes (that thread keeps the input open until it returns, or the process exits). A
    /// deadline in the interrupt flag ends a search that does poll it (a camera that sends whole
    /// pictures, none of them a keyframe) at the same time.
    ///
    /// - Throws: the stall, as the recording loop reports one, when no keyframe came within the
    ///   timeout; anything when a stop came (the caller reports the stop); the reading error.
    private func findParameterSets(_ input: InputContainer, source: InputSource) throws(CaptureError) {
        let limit = Int64(plan.stallTimeout * 1e6)
        let started = SessionClock.now()
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<FFmpegError?>(nil)
        stop.interrupt.setDeadline(started + limit)
        defer { stop.interrupt.clearDeadline() }
        DetachedThread.start(name: "capture stream info \(source.device.name)") {
            do throws(FFmpegError) { try input.findStreamInfo() } catch { outcome.withLock { $0 = error } }
            finished.signal()
        }
        let stall = StallWatch.error(
            device: source.device.name, lacking: "no usable frame", timeout: plan.stallTimeout, fileWritten: false)
        // A little past the deadline, so a search that polls it ends by itself.
        while finished.wait(timeout: .now() + 0.05) == .timedOut {
            if stop.isRequested { throw .failed("\(source.device.name): stopped before its first keyframe") }
            if SessionClock.now() - started > limit + 500_000 { throw stall }
        }
        guard let error = outcome.withLock({ $0 }) else { return }
        if stop.isRequested { throw .failed("\(source.device.name): stopped before its first keyframe") }
        // Interrupted at the deadline (`AVERROR_EXIT`), or failing as late: no keyframe in time.
        if SessionClock.now() - started >= limit { throw stall }
        throw InputSource.captureError(error, device: source.device)
    }

    /// Opens a camera with its chain; `choice` is its encoder choice (`chooseEncoders`).
    func openVideo(_ plan: RecordingPlan.Video, choice: EncoderChoice) throws(CaptureError) -> Track {
        let source = plan.source
        var (input, index, info) = try openInput(source, kind: .video)
        if source.live && !info.isIntraOnly {
            // A camera's own H.264 comes without extradata: the SPS and PPS travel in-band before
            // each keyframe. Reading up to the first keyframe (`avformat_find_stream_info`, which
            // runs FFmpeg's extract_extradata) gives MP4 and Matroska the avcC their header needs;
            // the packets read stay queued in the demuxer and are recorded.
            try findParameterSets(input, source: source)
            info = input.info(of: index)
        }
        let container = self.plan.container
        // Event clips start at a keyframe: one a second, so a clip starts at most 1 s early.
        let settled = try VideoNegotiation.negotiate(
            plan, input: info, container: container, withAudio: self.plan.audio != nil,
            keyframeSeconds: self.plan.clips == nil ? 2 : 1)
        if let warning = settled.warning { onWarning(warning) }
        let rate = settled.rate
        let stream: Int
        var decoder: Decoder?
        var encoder: EncodedStream?
        var opened: OpenedEncoder?
        if let settings = settled.settings {
            decoder = try media("opening the video decoder") { () throws(FFmpegError) in
                try Decoder(input: input, stream: index)
            }
            let made = try openEncoder(plan, settings: settings, choice: choice)
            opened = made
            stream = try media("adding the video stream") { () throws(FFmpegError) in
                try addOutputStream(encoder: made.encoder, device: source.device)
            }
            encoder = EncodedStream(encoder: made.encoder, stream: stream, kind: "video", packetDuration: 1)
        } else {
            stream = try addCopiedStream(input, stream: index, info: info, rate: rate, source: source)
        }
        let path = VideoPath(
            stream: stream, rate: rate, decoder: decoder, encoder: encoder,
            converter: PictureConverter(
                width: settled.width, height: settled.height, pixelFormat: opened?.pixelFormat ?? settled.pixelFormat,
                keepsFullRange: opened?.keepsFullRange ?? false),
            frameLimit: self.plan.frameLimit, input: info)
        path.fillsEmptySlots = encoder != nil && outputs.storesNoTimestamps
        if settled.passesThrough { path.passThroughSize = input.rawPassThroughSize(of: index) }
        // An unpaced source waits for the loop anyway: two frames keep its reader one frame
        // ahead, and a deeper queue would only hold more 1.4 MB pictures.
        let capacity =
            source.live ? Self.liveVideoCapacity(rate: rate, frameBytes: input.rawPassThroughSize(of: index)) : 2
        let lane = queue.addLane(live: source.live, dropsOldest: source.live, capacity: capacity)
        let reader = makeReader(
            input, stream: index, source: source, lane: lane, follower: sourceFollower)
        let track = Track(chain: .video(path), source: source, input: info, reader: reader)
        track.encoderBudget = opened?.budget
        track.encoderName = opened?.encoder.name
        track.encoderChoice = choice
        return track
    }

    /// Adds the output stream a camera's packets are copied into, as they come.
    ///
    /// - Throws: `.plan` when the container cannot hold the camera's codec.
    private func addCopiedStream(
        _ input: InputContainer, stream index: Int, info: MediaStreamInfo, rate: Rational, source: InputSource
    ) throws(CaptureError) -> Int {
        let container = plan.container
        guard input.canCopy(stream: index, into: container.muxer) else {
            let instead = CodecChoice.copyAlternatives(codec: info.codec, in: container)
            throw .plan(
                .copyNotInContainer(
                    fileExtension: container.fileExtension, codec: info.codec,
                    source: source.device.api == .test
                        ? "the test source's" : source.device.api == .lavfi ? "the lavfi graph's" : "the camera's",
                    working: instead.working, others: instead.others))
        }
        return try media("adding the video stream") { () throws(FFmpegError) in
            try addOutputStream(copying: input, stream: index, timeBase: rate.inverted, device: source.device)
        }
    }

    /// Bytes of raw pictures a camera's lane may hold.
    static let liveVideoBytes = 48 << 20

    /// Frames a camera's lane holds before it drops the oldest: one second at `rate` (frames per
    /// second), so the encoder's hiccups (a keyframe, its start-up, a slow write to a busy disk)
    /// cost no frame; raw pictures of `frameBytes` bytes each at most `liveVideoBytes` in all; never
    /// fewer than 8. A V4L2 packet maps one of the driver's buffers, but FFmpeg's input copies a
    /// frame when few buffers are left with the driver, so a deep lane never starves the camera.
    static func liveVideoCapacity(rate: Rational, frameBytes: Int?) -> Int {
        let second = Int(rate.doubleValue.rounded(.up))
        let budget = frameBytes.map { liveVideoBytes / max(1, $0) } ?? .max
        return max(8, min(second, budget))
    }

    func openAudio(_ plan: RecordingPlan.Audio) throws(CaptureError) -> Track {
        let source = plan.source
        let (input, index, info) = try openInput(source, kind: .audio)
        // A microphone's encoder was planned from its probe; the test tone and lavfi graphs say
        // what they deliver only once open.
        let encoderPlan: AudioEncoderPlan
        if let planned = plan.encoder {
            encoderPlan = planned
        } else {
            encoderPlan = try AudioEncoderPlanner.plan(
                codec: plan.codec, container: self.plan.container,
                input: .init(
                    format: AudioEncoderPlanner.format(ofCodec: info.codec),
                    sampleRate: plan.sampleRate ?? info.sampleRate ?? 48000,
                    channels: plan.channels ?? info.channels ?? 2),
                requested: plan.sampleFormat, device: source.device.name)
        }
        let delivered = info.channels ?? 0
        if delivered != encoderPlan.layout.channels && !ChannelLayout.remixes(delivered, encoderPlan.layout.channels) {
            // libswresample mixes between named layouts only; no file exists yet.
            let named = (1...64).filter { ChannelLayout.standard($0).mask != nil }
            throw .notSupported(
                device: source.device.name,
                reason:
                    "it delivers \(delivered == 1 ? "1 channel" : "\(delivered) channels"), which cannot be mixed to "
                    + "\(encoderPlan.layout.channels): FFmpeg mixes "
                    + "between \(AudioEncoderPlanner.describe(named)) channels only; leave out \(.channels) to record all "
                    + "\(delivered), or ask for one of those counts")
        }
        for note in encoderPlan.notes { onWarning(note) }
        let name = encoderPlan.encoder
        let decoder = try media("opening the audio decoder") { () throws(FFmpegError) in
            try Decoder(input: input, stream: index)
        }
        let encoder = try media("opening the \(name) encoder") { () throws(FFmpegError) in
            try Encoder(audio: encoderPlan, globalHeader: wantsGlobalHeader)
        }
        let stream = try media("adding the audio stream") { () throws(FFmpegError) in
            try addOutputStream(encoder: encoder, device: source.device)
        }
        let meter = LevelMeter(
            device: source.device.name, interval: self.plan.levelInterval, mixerHint: Self.mixerHint(source.device),
            trigger: self.plan.clips?.level)
        let path = try AudioPath(
            decoder: decoder, output: EncodedStream(encoder: encoder, stream: stream, kind: "audio"), plan: encoderPlan,
            meter: meter)
        let lane = queue.addLane(live: source.live, dropsOldest: false, capacity: source.live ? 512 : 32)
        let reader = makeReader(input, stream: index, source: source, lane: lane)
        return Track(chain: .audio(path), source: source, input: info, reader: reader)
    }

    /// Where to look when a microphone is silent: an ALSA card's capture mixer; nil for others.
    static func mixerHint(_ device: Device) -> String? {
        guard device.api == .alsa, let card = device.alsa?.cardIndex else { return nil }
        return "the capture switch and volume of card \(card) (capture controls \(device.name))"
    }
}
