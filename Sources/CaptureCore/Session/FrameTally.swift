/// Counts a video stream's frames on its output grid: those written, and each missing one once,
/// by cause.
///
/// Frame `n` of the recording belongs in slot `n` (its capture time times the frame rate). When a
/// written frame skips slots, some of them were filled by frames already counted as late (the
/// queue discarded them, or a copied stream waited for a keyframe) or corrupt; only the rest are
/// gaps the device left. So `written + late + corrupt` is what the device delivered and
/// `written + dropped` covers every slot of the recording (plus any frame delivered twice into one
/// slot, counted late).
///
/// A camera that delivers steadily slower than its nominal rate (a webcam lowering its rate in dim
/// light, 15 fps on a mode that announces 30) leaves every second slot empty by design. Its cadence
/// is the median interval between its frames, when that is at least a quarter longer than the
/// nominal interval and fewer than one interval in four falls below three quarters of it; the
/// frames missing from that cadence over the recording's span are then the gaps, so a slow camera
/// is reported as slow, not as losing half its frames, however its delivery jitters. Losses at the
/// nominal rate leave many one-interval steps beside the longer ones and are counted slot by slot.
/// Intervals shorter than half the nominal one are left out: no camera sends that fast, they are
/// frames a busy machine held up and then handed over in a burst, and counted as short intervals
/// they made a slow camera on a loaded machine look like one losing half its frames.
struct FrameTally: Equatable, Sendable {
    private(set) var written = 0
    /// Delivered but not written because the loop fell behind, or a second frame in one slot.
    private(set) var late = 0
    /// Delivered empty or damaged.
    private(set) var corrupt = 0
    /// Lost by the device within the recording, by its buffers' sequence numbers
    /// (`Packet.framesLostBefore`, `countLostByDevice`); 0 for a device that does not number them.
    /// Not in `dropped`: for such a device they stand in for `gaps`, which its summary leaves out.
    private(set) var lostByDevice = 0
    /// The slots of the first and last frames written; nil before the first.
    private(set) var firstSlot: Int64?
    private(set) var lastSlot: Int64?
    /// The nominal frame interval in microseconds; 0 counts slot by slot whatever the cadence.
    let frameInterval: Int64
    /// Late or corrupt frames since the last frame written: each stands in one skipped slot.
    private var countedSinceLastFrame = 0
    /// Capture times (microseconds) of the first and last frames written, and the end of the
    /// recording once known.
    private var firstTime: Int64?
    private var lastTime: Int64?
    private var endTime: Int64?

    /// A step from one written frame to the next (or to the end): slots advanced, and the late or
    /// corrupt frames counted in between.
    private struct Step: Hashable, Sendable {
        var slots: Int64
        var counted: Int
    }
    /// How many steps of each kind: bounded by the few kinds a real stream has.
    private var steps: [Step: Int] = [:]
    /// Capture-time intervals between written frames with nothing counted between them, in units
    /// of 100 microseconds: how many of each. Bursts (under half the nominal interval) are left out.
    private var intervals: [Int64: Int] = [:]

    /// - Parameter frameInterval: the nominal frame interval, microseconds; 0 (the default) never
    ///   takes a slower cadence into account.
    init(frameInterval: Int64 = 0) { self.frameInterval = frameInterval }

    var dropped: Int { late + corrupt + gaps }

    /// Never delivered: skipped places in the camera's cadence that no late or corrupt frame
    /// accounts for.
    var gaps: Int {
        guard let cadence = slowCadence else {
            return steps.reduce(0) { $0 + $1.value * max(0, Int($1.key.slots) - 1 - $1.key.counted) }
        }
        // At the camera's own cadence: the frames its span should hold, less what it delivered, and
        // the places left empty before the end.
        var missing = 0
        if let firstTime, let lastTime {
            let expected = Int((Double(lastTime - firstTime) / cadence).rounded()) + 1
            missing += max(0, expected - (written + late + corrupt))
        }
        if let endTime, let lastTime {
            missing += max(0, Int((Double(endTime - lastTime) / cadence).rounded()) - 1)
        }
        return missing
    }

    /// Frames per second the camera delivers when it runs steadily slower than its nominal rate;
    /// nil when it keeps its rate (or too few frames came to tell).
    /// The frames it delivered over the span they came in, which a late first or last frame moves
    /// less than the jitter of a busy machine moves the median interval.
    var deliveredRate: Double? {
        guard let cadence = slowCadence else { return nil }
        guard let firstTime, let lastTime, lastTime > firstTime else { return 1e6 / cadence }
        return Double(written + late + corrupt - 1) * 1e6 / Double(lastTime - firstTime)
    }

    /// How many intervals between frames written with nothing counted between them are known.
    var intervalCount: Int { intervals.values.reduce(0, +) }

    /// The median interval between frames written so far, microseconds; nil before two frames.
    var medianInterval: Double? {
        let total = intervals.values.reduce(0, +)
        guard total > 0 else { return nil }
        var seen = 0
        for (interval, count) in intervals.sorted(by: { $0.key < $1.key }) {
            seen += count
            if seen * 2 >= total { return Double(interval) * 100 }
        }
        return nil
    }

    /// The camera's own frame interval in microseconds when it is steadily at least a quarter
    /// longer than the nominal one; nil otherwise.
    private var slowCadence: Double? {
        guard frameInterval > 0 else { return nil }
        let total = intervals.values.reduce(0, +)
        guard total >= 8, let cadence = medianInterval else { return nil }
        let median = Int64(cadence / 100)
        // Losses at the nominal rate leave many intervals of one frame interval beside the longer
        // ones; a slow camera's intervals, jitter and all, rarely fall far below its cadence.
        let short = intervals.filter { $0.key * 4 < median * 3 }.values.reduce(0, +)
        guard short * 4 < total, cadence >= 1.25 * Double(frameInterval) else { return nil }
        return cadence
    }

    /// True when a frame in `slot` would land in or before the last written frame's slot.
    func isDuplicate(slot: Int64) -> Bool { lastSlot.map { slot <= $0 } ?? false }

    /// `count` frames, each in a slot of its own, that were delivered and not written: discarded
    /// by the queue, or skipped until a keyframe.
    mutating func countLate(_ count: Int = 1) {
        late += count
        countedSinceLastFrame += count
    }

    /// A frame delivered into a slot already written.
    mutating func countDuplicate() { late += 1 }

    /// Counts `frames` the device says it lost just before a frame that belongs in `slot` (for a
    /// frame past the end, the end's), as many as fit between the last frame written (or the
    /// start) and it: those before the start or after the end are not the recording's.
    mutating func countLostByDevice(_ frames: Int, before slot: Int64) {
        lostByDevice += min(frames, Int(max(0, slot - (lastSlot ?? -1) - 1)))
    }

    /// A frame delivered empty or damaged, in a slot of its own.
    mutating func countCorrupt() {
        corrupt += 1
        countedSinceLastFrame += 1
    }

    /// A frame captured at `time` (microseconds; nil when unknown) written in `slot`.
    mutating func countWritten(slot: Int64, time: Int64? = nil) {
        if let lastTime, let time, countedSinceLastFrame == 0, time > lastTime, (time - lastTime) * 2 >= frameInterval {
            intervals[(time - lastTime) / 100, default: 0] += 1
        }
        countStep(to: slot)
        if firstSlot == nil { firstSlot = slot }
        lastSlot = slot
        if firstTime == nil { firstTime = time }
        lastTime = time ?? lastTime
        written += 1
    }

    /// The recording ends before `slot`, at `time` (microseconds): places left empty after the
    /// last frame are gaps too.
    mutating func countEnd(before slot: Int64, time: Int64? = nil) {
        countStep(to: slot)
        endTime = time
    }

    private mutating func countStep(to slot: Int64) {
        if let lastSlot { steps[Step(slots: slot - lastSlot, counted: countedSinceLastFrame), default: 0] += 1 }
        countedSinceLastFrame = 0
    }
}
