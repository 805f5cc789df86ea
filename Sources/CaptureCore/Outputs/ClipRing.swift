/// The pre-roll of event clips: references to the last seconds of encoded packets of every
/// stream, bounded in seconds and in bytes.
///
/// Video is kept from a keyframe on (a clip must start with one): the latest at or before the
/// span's start. Audio is kept by its own times, from a little before that keyframe (what primes
/// a decoder), not by when it came: an encoder's delay hands the video over later than the audio
/// of the same moment, and audio that came before the keyframe's packet belongs after it.
///
/// Holds `Packet` references (`av_packet_ref`): each keeps its encoded payload alive until the
/// ring lets go of it. Used by the recording loop's thread only.
struct ClipRing {
    /// One packet kept: its stream, its start and its decoding time on the recording's clock
    /// (microseconds), and whether a clip may start on it.
    struct Entry {
        let packet: Packet
        let stream: Int
        let time: Int64
        let decodeTime: Int64
        let isVideo: Bool
        let isKeyframe: Bool
    }

    /// Seconds kept, as microseconds; the most bytes.
    let span: Int64
    let maxBytes: Int64
    /// True when the recording has video: the ring then starts with a video keyframe.
    let hasVideo: Bool
    /// Audio kept before the first keyframe (microseconds): more than any decoder's priming.
    static let audioMargin: Int64 = 250_000

    /// Each kind's packets in the order they came; slots before `head` are let go of (nil) until
    /// the array is compacted.
    private var video = Lane()
    private var audio = Lane()
    /// Payload bytes held.
    private(set) var bytes: Int64 = 0
    /// Set once the byte limit cut the pre-roll short of its seconds.
    private(set) var overflowed = false

    private struct Lane {
        var entries: [Entry?] = []
        var head = 0
        var first: Entry? { head < entries.count ? entries[head] : nil }
        var held: ArraySlice<Entry?> { entries[head...] }

        /// Lets go of the first packet (now, not at the next compaction).
        ///
        /// - Returns: its payload's bytes.
        mutating func dropFirst() -> Int64 {
            let size = Int64(entries[head]?.packet.size ?? 0)
            entries[head] = nil
            head += 1
            return size
        }

        /// Lets go of the packets before `index`.
        mutating func drop(until index: Int) -> Int64 {
            var size: Int64 = 0
            while head < index { size += dropFirst() }
            return size
        }

        /// Moves the array only when half of it is let go of.
        mutating func compact() {
            if head > 64 && head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }
    }

    init(seconds: Double, maxBytes: Int64, hasVideo: Bool) {
        span = Int64((seconds * 1e6).rounded())
        self.maxBytes = maxBytes
        self.hasVideo = hasVideo
    }

    /// Where a clip opened now for a trigger at `trigger` (microseconds) starts: the latest
    /// keyframe kept at or before `trigger` less the span (else the first kept), or without video
    /// the first packet at or after it; nil when nothing is kept yet. The encoder's delay leaves
    /// the ring's newest video behind the trigger, so the ring may hold an interval more.
    func start(for trigger: Int64) -> Int64? {
        guard hasVideo else {
            return audio.held.lazy.compactMap { $0 }.first { $0.time >= trigger - span }?.time ?? audio.first?.time
        }
        let keyframes = video.held.lazy.compactMap { $0 }.filter(\.isKeyframe).map(\.time)
        return keyframes.last { $0 <= trigger - span } ?? keyframes.first
    }

    /// The packets of a clip that starts at `start` (`start(for:)`), in decoding order: the
    /// video from that keyframe on, the audio from a little before it (`audioMargin`, for
    /// priming).
    func held(from start: Int64) -> [Entry] {
        let sound = audio.held.compactMap { $0 }.filter { $0.time >= start - (hasVideo ? Self.audioMargin : 0) }
        guard hasVideo else { return sound }
        let all = video.held.compactMap { $0 }
        guard let first = all.firstIndex(where: { $0.isKeyframe && $0.time == start }) else { return [] }
        let pictures = all[first...]
        var merged: [Entry] = []
        merged.reserveCapacity(pictures.count + sound.count)
        var (v, a) = (pictures.startIndex, 0)
        while v < pictures.endIndex || a < sound.count {
            if a >= sound.count || (v < pictures.endIndex && pictures[v].decodeTime <= sound[a].decodeTime) {
                merged.append(pictures[v])
                v += 1
            } else {
                merged.append(sound[a])
                a += 1
            }
        }
        return merged
    }

    /// Keeps `entry`, then lets go of what is older than the span, or past the byte limit (whole
    /// keyframe intervals at a time).
    mutating func add(_ entry: Entry) {
        if entry.isVideo { video.entries.append(entry) } else { audio.entries.append(entry) }
        bytes += Int64(entry.packet.size)
        // Nothing before the first keyframe can start a clip.
        while let first = video.first, !first.isKeyframe { bytes -= video.dropFirst() }
        let newest = entry.time
        if hasVideo {
            if entry.isVideo {
                while let next = nextKeyframe(), video.entries[next]!.time <= newest - span {
                    bytes -= video.drop(until: next)
                }
            }
            while bytes > maxBytes, let next = nextKeyframe() {
                bytes -= video.drop(until: next)
                overflowed = true
            }
            let from = (video.first?.time ?? newest) - Self.audioMargin
            while let first = audio.first, first.time < from { bytes -= audio.dropFirst() }
        } else {
            while let first = audio.first, first.time < newest - span || bytes > maxBytes {
                if first.time >= newest - span { overflowed = true }
                bytes -= audio.dropFirst()
            }
        }
        video.compact()
        audio.compact()
    }

    /// The index of the keyframe after the first one kept.
    private func nextKeyframe() -> Int? {
        var next = video.head + 1
        while next < video.entries.count {
            if video.entries[next]?.isKeyframe == true { return next }
            next += 1
        }
        return nil
    }

    /// Lets go of every packet.
    mutating func removeAll() {
        video = Lane()
        audio = Lane()
        bytes = 0
    }

    /// True when a clip could start now.
    var canStart: Bool { (hasVideo ? video.first : audio.first) != nil }

    /// Seconds the ring holds now, from its first place a clip could start to its newest packet.
    var seconds: Double {
        let newest = max(video.entries.last??.time ?? 0, audio.entries.last??.time ?? 0)
        return Double(newest - ((hasVideo ? video.first : audio.first)?.time ?? newest)) / 1e6
    }
}
