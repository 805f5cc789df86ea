internal import CFFmpeg
import Synchronization

/// A flag that FFmpeg polls while it blocks in a demuxer or protocol (`AVIOInterruptCB`): once
/// set, pending and later calls on the container return `AVERROR_EXIT`.
///
/// Thread-safe: set from a signal handler's queue, read by FFmpeg on a reader thread.
final class InterruptFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    init() {}

    var isRaised: Bool { raised.load(ordering: .acquiring) }

    func raise() { raised.store(true, ordering: .releasing) }

    /// The callback for `AVFormatContext.interrupt_callback`. The flag must outlive the context.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().isRaised ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
