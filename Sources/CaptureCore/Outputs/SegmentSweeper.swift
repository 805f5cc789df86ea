import Glibc

/// Deletes the finished segments of a series that its retention policy (`--keep`,
/// `--max-total-size`) no longer keeps, and, when the disk fills before those limits are reached,
/// the oldest ones too, so the recording goes on rather than ending on a full disk.
///
/// Used by the recording loop's thread only.
final class SegmentSweeper {
    private let plan: SegmentPlan
    private var warnedFull = false
    private var pendingWarning: String?

    init(plan: SegmentPlan) { self.plan = plan }

    /// Deletes what is no longer kept among the series' files on disk.
    ///
    /// Never a file this run has open, being finished, or about to finish; nor one another
    /// capture process has open or is finishing (the same template in the same folder): that
    /// is no finished file of the series yet, and it counts for no limit.
    ///
    /// - Parameters:
    ///   - written: the segments this run finished, oldest first.
    ///   - busy: the segments being finished now.
    ///   - open: the segment being written, if any, and its size so far (bytes).
    ///   - closed: a segment was closed since the last sweep: the policy's limits are applied.
    ///   - shortBy: bytes the free space lacks (`shortfall`); the oldest make room for them.
    /// - Returns: the paths deleted and their sizes in bytes, in order.
    func sweep(
        written: [String], busy: Set<String>, open: String?, openBytes: Int64, closed: Bool, shortBy: Int64
    ) -> [(path: String, bytes: Int64)] {
        let files = SeriesFile.list(template: plan.template, written: written).filter {
            !busy.contains($0.path) && !SegmentLock.isHeld($0.path)
        }
        var doomed = closed ? plan.retention.deletions(among: files, current: open, currentBytes: openBytes) : []
        if shortBy > 0 {
            let left = files.filter { file in !doomed.contains { $0.path == file.path } }
            let room = RetentionPolicy.freeing(shortBy, among: left, current: open)
            if !room.isEmpty && !warnedFull {
                warnedFull = true
                pendingWarning =
                    "the disk holding \(plan.template.pattern) is nearly full; deleting the oldest segments "
                    + "of the series to make room"
            }
            doomed += room
        }
        // Checked again at the unlink: another recorder may have opened the name since the listing.
        return doomed.compactMap { file in SegmentLock.deleteIfFree(file.path).map { (file.path, $0) } }
    }

    /// A line for the user, once: the disk filled and the oldest segments make room.
    func takeWarning() -> String? {
        defer { pendingWarning = nil }
        return pendingWarning
    }

    /// Bytes missing from the free space the recording should have ahead of it in its folder:
    /// four seconds of what it writes, and at least 1 MiB; 0 when there is enough.
    ///
    /// - Parameters:
    ///   - written: bytes the recording wrote so far, over `microseconds` of it.
    func shortfall(written: Int64, over microseconds: Int64) -> Int64 {
        var status = statvfs()
        let folder = plan.template.directory.isEmpty ? "." : plan.template.directory
        guard statvfs(folder, &status) == 0 else { return 0 }
        let free = Int64(status.f_bavail) * Int64(status.f_frsize)
        let seconds = Double(max(microseconds, 1)) / 1e6
        let rate = Double(written) / seconds
        let reserve = max(Int64(1 << 20), Int64(rate * 4))
        return max(0, reserve - free)
    }
}
