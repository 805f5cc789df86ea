/// The finished segments of an HLS recording still on disk, oldest first, and which of them its
/// playlist lists: the newest ones its retention limits (`--keep`, `--max-total-size`) keep.
///
/// The segment that just left the playlist stays on disk, unlisted, while the budget has room
/// for it: a player that read the playlist before may still be fetching it (RFC 8216, 6.2.2,
/// asks that a removed segment stay available a while; FFmpeg's hls muxer keeps one too).
///
/// A pure value; the caller deletes the segments `apply` returns.
struct PlaylistWindow {
    struct Entry: Equatable {
        var segment: MediaPlaylist.Segment
        /// Its size in bytes.
        var bytes: Int64
    }

    let retention: RetentionPolicy
    /// Finished segments on disk, oldest first.
    private(set) var onDisk: [Entry] = []
    /// Where the listed ones start in `onDisk`.
    private var firstListed = 0

    init(retention: RetentionPolicy) { self.retention = retention }

    /// The segments the playlist lists, oldest first.
    var listed: ArraySlice<Entry> { onDisk[firstListed...] }

    /// The sequence number the next segment will have.
    var nextSequence: Int { (onDisk.last?.segment.sequence ?? -1) + 1 }

    /// Adds a segment that was finished; one already known (by sequence number) is ignored.
    mutating func add(_ entry: Entry) {
        guard entry.segment.sequence >= nextSequence else { return }
        onDisk.append(entry)
    }

    /// Applies the limits, with `currentBytes` for the segment being written.
    ///
    /// - Returns: the segments to delete, oldest first; they are no longer listed.
    mutating func apply(currentBytes: Int64) -> [Entry] {
        let sizes = onDisk.map(\.bytes)
        let first = retention.firstKept(sizes: sizes, currentBytes: currentBytes)
        var kept = first
        if first > 0 {
            let withIt = sizes[(first - 1)...].reduce(currentBytes, +)
            if withIt <= retention.maxTotalBytes ?? .max { kept = first - 1 }
        }
        let gone = Array(onDisk[..<kept])
        onDisk.removeFirst(kept)
        firstListed = first - kept
        return gone
    }
}
