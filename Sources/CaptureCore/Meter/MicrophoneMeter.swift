import FoundationEssentials

/// Shows a microphone's levels without recording: `capture meter`, for setting its gain.
///
/// The microphone is opened as a recording opens it (`RecordingPlanner`'s choice of sample rate,
/// channels and format; the same busy, permission and missing-device errors), its packets are
/// decoded and measured (`LevelMeter`), nothing is written. One thread: `run` blocks until the
/// duration has been measured, a stop comes, or the device fails.
public final class MicrophoneMeter {
    /// What to measure, and how often to report.
    public struct Request: Sendable {
        public var device: DeviceName
        /// The sample rate and channel count asked of the device (Hz, channels); nil: as a recording
        /// would choose.
        public var sampleRate: Int?
        public var channels: Int?
        /// Seconds of audio to measure; nil: until stopped.
        public var duration: Double?
        /// Seconds of audio between readings (`onReading`), at least a tenth of a second.
        public var interval: Double
        /// Seconds without data before the device counts as stalled.
        public var stallTimeout: Double

        public init(
            device: DeviceName, sampleRate: Int? = nil, channels: Int? = nil, duration: Double? = nil,
            interval: Double = 1, stallTimeout: Double = 5
        ) {
            self.device = device
            self.sampleRate = sampleRate
            self.channels = channels
            self.duration = duration
            self.interval = interval
            self.stallTimeout = stallTimeout
        }
    }

    /// What was measured.
    public struct Summary: Codable, Hashable, Sendable {
        public var device: String
        /// What the device delivered, e.g. `pcm_s16le s16 48000 Hz 2 channels`.
        public var input: String
        /// Seconds of audio measured.
        public var duration: Double
        /// The levels over all of it; nil when no sample came.
        public var levels: LevelSummary?
        /// The signal that stopped it (`SIGINT`); nil when it ran its duration.
        public var stoppedBy: String?
    }

    public let request: Request
    private let stop: StopSignal
    /// Called on `run`'s thread with each reading: an `audio_level` event over `interval`.
    public var onReading: (RecordingEvent) -> Void = { _ in }
    /// Called on `run`'s thread with a warning: digital silence, and sound again.
    public var onWarning: (String) -> Void = { _ in }

    public init(request: Request, stop: StopSignal) {
        self.request = request
        self.stop = stop
    }

    /// Opens the microphone and measures it.
    ///
    /// - Returns: what was measured; a stop before the first sample gives a summary of nothing.
    /// - Throws: the device's errors as for a recording (64 for a lavfi graph without audio, 66,
    ///   69 for a rate or channel count it cannot give, 75 busy, 77 denied), 74 when it stalls
    ///   or fails while read.
    public func run() throws(CaptureError) -> Summary {
        let device = try DeviceResolver.resolve(request.device, kind: .audio)
        let entry = try DeviceSurvey.entry(for: device, kind: .audio)
        // Planned as an audio-only recording would be, so the meter hears what it would record.
        let planned = RecordingRequest(
            audio: request.device, output: "meter.wav", sampleRate: request.sampleRate, channels: request.channels,
            stallTimeout: request.stallTimeout)
        let plan = try RecordingPlanner.plan(planned, survey: DeviceSurvey(cameras: [], microphones: [entry]))
        guard let source = plan.audio?.source else { throw .failed("\(device.name): no audio to measure") }
        let deadline = ReadDeadline(stop: stop, seconds: request.stallTimeout)
        let input: InputContainer
        do {
            input = try source.open(interrupt: stop.interrupt)
        } catch {
            if stop.isRequested { return Summary(device: device.name, input: "", duration: 0, stoppedBy: stopName) }
            throw error
        }
        deadline.fed()
        guard let index = input.firstStream(of: .audio) else {
            if device.api == .lavfi { throw .usage("\(device.name): the lavfi graph gives no audio") }
            throw .notSupported(device: device.name, reason: "gives no audio")
        }
        let info = input.info(of: index)
        // A test source or lavfi graph delivers what its graph says: it has no modes to choose.
        if let asked = request.sampleRate, let rate = info.sampleRate, asked != rate {
            onWarning("\(device.name) delivers \(rate) Hz, not the \(asked) asked: measured as it delivers")
        }
        if let asked = request.channels, let channels = info.channels, asked != channels {
            onWarning(
                "\(device.name) delivers \(channels) channel\(channels == 1 ? "" : "s"), not the \(asked) asked: "
                    + "measured as it delivers")
        }
        var meter = LevelMeter(
            device: device.name, interval: request.interval, mixerHint: RecordingSession.mixerHint(device))
        let samples = try measure(input, stream: index, deadline: deadline, meter: &meter, device: device)
        return Summary(
            device: device.name, input: info.summary, duration: Double(samples) / Double(max(1, info.sampleRate ?? 1)),
            levels: meter.summary, stoppedBy: stop.isRequested ? stopName : nil)
    }

    /// Reads, decodes and measures until the duration or a stop.
    ///
    /// - Returns: samples per channel measured.
    private func measure(
        _ input: InputContainer, stream index: Int, deadline: ReadDeadline, meter: inout LevelMeter, device: Device
    ) throws(CaptureError) -> Int64 {
        let decoder = try media("opening the audio decoder") { () throws(FFmpegError) in
            try Decoder(input: input, stream: index)
        }
        let rate = Int64(input.info(of: index).sampleRate ?? 48000)
        let limit = request.duration.map { Int64(($0 * Double(rate)).rounded()) }
        var measured: Int64 = 0
        let packet = try media("reading audio") { () throws(FFmpegError) in try Packet() }
        let frame = try media("reading audio") { () throws(FFmpegError) in try Frame() }
        while !stop.isRequested, limit.map({ measured < $0 }) ?? true {
            let more: Bool
            do throws(FFmpegError) {
                more = try input.read(into: packet)
            } catch {
                if stop.isRequested { break }
                if deadline.passed {
                    throw .io(
                        subject: device.name,
                        reason: "no data within \(DurationValue.text(request.stallTimeout)) s; the device stalled")
                }
                throw InputSource.captureError(error, device: device)
            }
            guard more else { break }
            deadline.fed()
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            try media("decoding audio") { () throws(FFmpegError) in
                try decoder.send(packet)
                while try decoder.receive(into: frame) {
                    defer { frame.unref() }
                    // The last block is measured up to the duration only.
                    let wanted = limit.map { Int(min(Int64(frame.sampleCount), max(0, $0 - measured))) }
                    meter.take(frame, time: measured * 1_000_000 / rate, count: wanted)
                    measured += Int64(wanted ?? frame.sampleCount)
                }
            }
            report(&meter)
        }
        meter.finish()
        report(&meter)
        return measured
    }

    /// Passes the meter's readings and warnings on.
    private func report(_ meter: inout LevelMeter) {
        let news = meter.takeNews()
        for event in news.events { onReading(event) }
        for line in news.warnings { onWarning(line) }
    }

    private var stopName: String? { stop.signal != 0 ? StopSignal.name(of: stop.signal) : nil }
}
