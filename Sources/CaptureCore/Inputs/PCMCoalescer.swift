/// Joins a microphone's small PCM packets into blocks of about one audio frame.
///
/// FFmpeg's ALSA input reads one period per packet and asks ALSA for the smallest period, which
/// on some cards is 16 samples: thousands of packets a second, each a trip through the queue and
/// the loop. Joined on the reader thread, the loop sees a few dozen. A gap in the timestamps is
/// never joined over, so overruns stay visible to the audio path.
struct PCMCoalescer {
    /// Bytes per sample frame (every channel).
    let frameBytes: Int
    let sampleRate: Int
    /// A block is handed on once it holds this many sample frames.
    let blockFrames: Int
    /// A jump in the timestamps larger than this (microseconds) starts a new block.
    static let gapTolerance: Int64 = 20_000

    private var pending: QueuedPacket?

    init(frameBytes: Int, sampleRate: Int, blockFrames: Int = 1024) {
        self.frameBytes = max(1, frameBytes)
        self.sampleRate = max(1, sampleRate)
        self.blockFrames = blockFrames
    }

    /// The session time just after the pending block's last sample.
    private var pendingEnd: Int64? {
        pending.map { $0.time + Int64($0.packet.size / frameBytes) * 1_000_000 / Int64(sampleRate) }
    }

    /// Adds a packet; returns the blocks that are complete, oldest first.
    mutating func add(_ item: QueuedPacket) throws(FFmpegError) -> [QueuedPacket] {
        var ready: [QueuedPacket] = []
        if let end = pendingEnd, let current = pending {
            if abs(item.time - end) > Self.gapTolerance {
                ready.append(current)
                pending = item
            } else {
                try current.packet.append(item.packet)
            }
        } else {
            pending = item
        }
        if let current = pending, current.packet.size / frameBytes >= blockFrames {
            ready.append(current)
            pending = nil
        }
        return ready
    }

    /// The incomplete block, if any, at the end of the input.
    mutating func flush() -> QueuedPacket? {
        defer { pending = nil }
        return pending
    }
}
