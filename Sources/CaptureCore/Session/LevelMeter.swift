/// A microphone's levels as its samples come: the latest tenth of a second for the progress line,
/// `audio_level` events every `interval`, a warning when it has delivered digital silence for
/// five seconds (and again when sound returns), and the totals for the summary.
///
/// Counted in the device's samples, not on the wall clock: the same audio gives the same readings
/// however fast the machine runs. Used by one thread (the recording loop's, or the meter's).
struct LevelMeter {
    /// The device, as messages name it.
    let device: String
    /// Seconds between `audio_level` events; nil: none.
    let interval: Double?
    /// What to look at when the device is silent, for the warning ("capture controls hw:1").
    let mixerHint: String?
    /// The level that triggers an event clip; nil: none.
    let trigger: ClipPlan.LevelTrigger?

    /// Samples per reading: a tenth of a second.
    static let window = 0.1
    /// Below this peak (dBFS) a reading is digital silence: an idle 16-bit converter's last bit.
    static let silenceFloor = -90.0
    /// Seconds of silence before the warning.
    static let silenceWarning = 5.0

    private var reading = SampleLevels()
    /// The samples of one step of `take`, reused from step to step.
    private var block = SampleLevels()
    /// The sample rate of the last block: what a last, short interval is measured in.
    private var lastRate: Int64?
    private var event = SampleLevels()
    private var eventStart: Int64?
    private var total = SampleLevels()
    /// Seconds of the current run of silent readings, and of all of them.
    private var silentRun = 0.0
    private var silentTotal = 0.0
    private var warnedSilent = false

    /// The last complete reading; nil before the first.
    private(set) var latest: AudioLevel?
    private var news: (events: [RecordingEvent], warnings: [String]) = ([], [])

    init(device: String, interval: Double? = nil, mixerHint: String? = nil, trigger: ClipPlan.LevelTrigger? = nil) {
        self.device = device
        self.interval = interval
        self.mixerHint = mixerHint
        self.trigger = trigger
    }

    /// Seconds the level has been at or above the trigger's threshold, and when it last
    /// triggered during that run (microseconds; nil: not yet).
    private var loudRun = 0.0
    private var lastTriggered: Int64?
    /// When the level triggered since the last `takeTriggers` (microseconds from the start).
    private var triggers: [Int64] = []

    /// The times the level triggered a clip since the last call: once it has held for the
    /// trigger's hold time, and once a second while it stays (each extends the clip).
    mutating func takeTriggers() -> [Int64] {
        defer { triggers = [] }
        return triggers
    }

    /// Takes `count` samples per channel (nil: to the end) from sample `first` on of a block of
    /// the device's decoded samples; sample `first` was captured at `time` (microseconds from the
    /// start of the recording). Readings and events are cut at exact sample counts, however the
    /// device blocks its audio.
    mutating func take(_ frame: Frame, time: Int64, from first: Int = 0, count: Int? = nil) {
        let rate = Int64(frame.sampleRate)
        let total = first + min(count ?? frame.sampleCount - first, frame.sampleCount - first)
        guard rate > 0 else { return }
        lastRate = rate
        let readingSize = max(1, Int64((Self.window * Double(rate)).rounded()))
        let eventSize = interval.map { max(1, Int64(($0 * Double(rate)).rounded())) }
        var offset = first
        while offset < total {
            let at = time + Int64(offset - first) * 1_000_000 / rate
            var n = min(Int64(total - offset), readingSize - reading.samples)
            if let eventSize { n = min(n, eventSize - event.samples) }
            // The level trigger judges every hundredth of a second: its hold is that exact.
            if trigger != nil { n = min(n, max(1, rate / 100)) }
            block.clear()
            block.add(frame, from: offset, count: Int(n))
            guard block.samples > 0 else { return }
            offset += Int(n)
            self.total.merge(block)
            if let trigger {
                triggerIfLoud(
                    block.channels.map(\.peak).max() ?? 0, from: at, seconds: Double(n) / Double(rate), trigger: trigger
                )
            }
            reading.merge(block)
            if reading.samples >= readingSize {
                close(reading, seconds: Double(reading.samples) / Double(rate))
                reading.clear()
            }
            guard eventSize != nil else { continue }
            if eventStart == nil { eventStart = at }
            event.merge(block)
            if event.samples >= eventSize! { emitEvent(rate: rate) }
        }
    }

    /// Ends the interval going on: an `audio_level` event for what it holds.
    private mutating func emitEvent(rate: Int64) {
        guard event.samples > 0, let eventStart else { return }
        news.events.append(
            RecordingEvent(
                event: .audioLevel, start: (Double(eventStart) / 1e3).rounded() / 1e3 + 0,
                duration: (Double(event.samples) / Double(rate) * 1e6).rounded() / 1e6, device: device,
                channels: Self.level(of: event).channels))
        event.clear()
        self.eventStart = nil
    }

    /// Ends the measurement: the interval going on, however short, gets its event.
    mutating func finish() {
        if let rate = lastRate { emitEvent(rate: rate) }
    }

    /// Ends a reading of `seconds`: the progress line's, and the silence it may be part of.
    private mutating func close(_ levels: SampleLevels, seconds: Double) {
        let level = Self.level(of: levels)
        latest = level
        let silent = (level.peak ?? -.infinity) < Self.silenceFloor
        if silent {
            silentRun += seconds
            silentTotal += seconds
            if silentRun >= Self.silenceWarning && !warnedSilent {
                warnedSilent = true
                let hint = mixerHint.map { "; muted? see \($0)" } ?? "; muted or unplugged?"
                news.warnings.append(
                    "\(device): digital silence for \(DurationValue.text(Self.silenceWarning)) s (every sample below "
                        + "\(Int(Self.silenceFloor)) dBFS)\(hint)")
            }
        } else {
            if warnedSilent {
                news.warnings.append(
                    "\(device): sound again after \(String(cFormat: "%.1f", silentRun)) s of digital silence")
            }
            warnedSilent = false
            silentRun = 0
        }
    }

    /// Notes `seconds` of samples from `start` (microseconds) whose largest magnitude is `peak`
    /// (full scale 1) against the level trigger.
    private mutating func triggerIfLoud(
        _ peak: Double, from start: Int64, seconds: Double, trigger: ClipPlan.LevelTrigger
    ) {
        guard (AudioLevel.decibels(peak) ?? -.infinity) >= trigger.threshold else {
            loudRun = 0
            lastTriggered = nil
            return
        }
        loudRun += seconds
        let end = start + Int64((seconds * 1e6).rounded())
        guard loudRun >= trigger.hold - 1e-9, lastTriggered.map({ end - $0 >= 1_000_000 }) ?? true else { return }
        lastTriggered = end
        triggers.append(end)
    }

    /// What happened since the last call: `audio_level` events, silence warnings.
    mutating func takeNews() -> (events: [RecordingEvent], warnings: [String]) {
        defer { news = ([], []) }
        return news
    }

    /// The whole recording's levels; nil when no sample came.
    var summary: LevelSummary? {
        guard total.samples > 0 else { return nil }
        let level = Self.level(of: total)
        return LevelSummary(
            peak: level.peak, rms: level.channels.compactMap(\.rms).max(), clipped: level.clipped,
            secondsSilent: (silentTotal * 10).rounded() / 10)
    }

    /// `levels` in dBFS, channel by channel.
    static func level(of levels: SampleLevels) -> AudioLevel {
        AudioLevel(
            channels: levels.channels.indices.map { index in
                AudioLevel.Channel(
                    peak: AudioLevel.decibels(levels.channels[index].peak),
                    rms: AudioLevel.decibels(levels.rms(index)), clipped: levels.channels[index].clipped)
            })
    }
}
