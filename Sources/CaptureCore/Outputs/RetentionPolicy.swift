import FoundationEssentials
import Glibc

/// Which finished files of a series to delete so that a long recording never fills its disk:
/// Keeping N files (the N newest stay) and a size budget (the series stays within it).
///
/// Only the series' own files are ever chosen: those this run wrote, and those in the template's
/// folder whose name the template could have made (an earlier run's). The file being written is
/// never chosen. The oldest go first. A pure value; the caller lists the folder
/// (`SeriesFile.list`) and deletes.
public struct RetentionPolicy: Hashable, Sendable {
    /// How many finished files to keep; nil: no limit by count. The file being written is not
    /// counted: keeping 48 with hour-long segments keeps two days of finished ones.
    public var keep: Int?
    /// The most bytes the series may take, the file being written included; nil: no limit.
    public var maxTotalBytes: Int64?

    public init(keep: Int? = nil, maxTotalBytes: Int64? = nil) {
        self.keep = keep
        self.maxTotalBytes = maxTotalBytes
    }

    /// True when neither limit is set.
    public var isEmpty: Bool { keep == nil && maxTotalBytes == nil }

    /// Checks the limits against one file's expected size (the segment size).
    ///
    /// - Throws: `CaptureError.usage` (64) for keeping 0 files or fewer, or a size budget below
    ///   one segment, which would delete each segment as soon as it is finished.
    public func validate(segmentBytes: Int64?) throws(CaptureError) {
        if let keep, keep < 1 { throw .usage("\(.keep) takes a number of files from 1 up, not \(keep)") }
        if let maxTotalBytes, let segmentBytes, maxTotalBytes < segmentBytes {
            throw .usage(
                "\(.maxTotalSize, "\(maxTotalBytes)") bytes is below one segment (\(.segmentSize, "\(segmentBytes)") bytes); "
                    + "allow at least one segment")
        }
    }

    /// The files to delete, oldest first.
    ///
    /// - Parameters:
    ///   - files: the series' files (this run's and those matching its template; see `SeriesFile`).
    ///   - current: the path being written, never chosen; its size counts towards the total.
    ///   - currentBytes: the bytes the file being written takes, or is expected to take.
    public func deletions(among files: [SeriesFile], current: String?, currentBytes: Int64 = 0) -> [SeriesFile] {
        let finished = files.filter { $0.path != current }.sorted(by: SeriesFile.olderFirst)
        return Array(finished.prefix(firstKept(sizes: finished.map(\.bytes), currentBytes: currentBytes)))
    }

    /// How many of the oldest finished files the limits leave out.
    ///
    /// - Parameters:
    ///   - sizes: the finished files' sizes in bytes, oldest first.
    ///   - currentBytes: the bytes the file being written takes, or is expected to take.
    func firstKept(sizes: [Int64], currentBytes: Int64) -> Int {
        var doomed = 0
        if let keep, sizes.count > keep { doomed = sizes.count - keep }
        if let maxTotalBytes {
            var total = sizes[doomed...].reduce(currentBytes, +)
            // The newest finished file stays whatever the budget: a series never deletes itself
            // down to nothing.
            while total > maxTotalBytes && doomed < sizes.count - 1 {
                total -= sizes[doomed]
                doomed += 1
            }
        }
        return doomed
    }

    /// The oldest files whose deletion frees at least `bytes` (a full disk), or all but the newest
    /// when they hold less; never `current`.
    public static func freeing(_ bytes: Int64, among files: [SeriesFile], current: String?) -> [SeriesFile] {
        var freed: Int64 = 0
        var chosen: [SeriesFile] = []
        for file in files.filter({ $0.path != current }).sorted(by: SeriesFile.olderFirst).dropLast()
        where freed < bytes {
            chosen.append(file)
            freed += file.bytes
        }
        return chosen
    }
}

/// One file of a series, as a retention policy weighs it.
public struct SeriesFile: Hashable, Sendable {
    public var path: String
    public var bytes: Int64
    /// Last modification: a finished file's end.
    public var modified: Date

    public init(path: String, bytes: Int64, modified: Date) {
        self.path = path
        self.bytes = bytes
        self.modified = modified
    }

    /// Older first; for equal times, by name, which a numbered or dated template orders too.
    static func olderFirst(_ a: SeriesFile, _ b: SeriesFile) -> Bool {
        a.modified != b.modified ? a.modified < b.modified : a.path < b.path
    }

    /// The series' files: `written` (this run's, wherever they are) and the regular files in the
    /// template's folder whose names the template could have made. Hidden files (a file still
    /// being written) and anything else are left out.
    ///
    /// - Parameter written: the paths this run finished, as the template made them.
    /// - Returns: each file once, with its size and time (`lstat(2)`); files gone meanwhile are
    ///   left out. An unreadable folder gives this run's files only.
    public static func list(template: OutputTemplate, written: [String]) -> [SeriesFile] {
        let folder = template.directory.isEmpty ? "." : template.directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var paths = Set(written)
        for name in names where !name.hasPrefix(".") && template.matches(fileName: name) {
            paths.insert(template.directory + name)
        }
        return paths.sorted().compactMap { path in
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            let time = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            return SeriesFile(path: path, bytes: Int64(status.st_size), modified: Date(timeIntervalSince1970: time))
        }
    }
}
