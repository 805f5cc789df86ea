/// Counts a video stream's frames on its output grid: those written, and each missing one once,
/// by cause.
///
/// Frame `n` of the recording belongs in slot `n` (its capture time times the frame rate). When a
/// written frame skips slots, some of them were filled by frames already counted as late (the
/// queue discarded them, or a copied stream waited for a keyframe) or corrupt; only the rest are
/// gaps the device left. So `written + late + corrupt` is what the device delivered and
/// `written + dropped` covers every slot of the recording (plus any frame delivered twice into one
/// slot, counted late).
struct FrameTally: Equatable, Sendable {
    private(set) var written = 0
    /// Delivered but not written because the loop fell behind, or a second frame in one slot.
    private(set) var late = 0
    /// Delivered empty or damaged.
    private(set) var corrupt = 0
    /// Never delivered: skipped slots no late or corrupt frame accounts for.
    private(set) var gaps = 0
    /// The slot of the last frame written; nil before the first.
    private(set) var lastSlot: Int64?
    /// Late or corrupt frames since the last frame written: each stands in one skipped slot.
    private var countedSinceLastFrame = 0

    var dropped: Int { late + corrupt + gaps }

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

    /// A frame delivered empty or damaged, in a slot of its own.
    mutating func countCorrupt() {
        corrupt += 1
        countedSinceLastFrame += 1
    }

    /// A frame written in `slot`.
    mutating func countWritten(slot: Int64) {
        countGap(before: slot)
        lastSlot = slot
        written += 1
    }

    /// The recording ends before `slot`: slots left empty after the last frame are gaps too.
    mutating func countEnd(before slot: Int64) { countGap(before: slot) }

    private mutating func countGap(before slot: Int64) {
        if let lastSlot { gaps += max(0, Int(slot - lastSlot - 1) - countedSinceLastFrame) }
        countedSinceLastFrame = 0
    }
}
