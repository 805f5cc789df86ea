import FoundationEssentials
import Glibc

/// How a recording's file comes into being at its name without ever leaving a half-made file there
/// or replacing one unasked.
///
/// The muxer writes a hidden file beside the path, `.NAME.capture-PID` (so the move is a rename
/// within one file system), and once its header is written the file is moved to the path: with
/// `rename(2)` when replacing is allowed, else with `link(2)` + `unlink(2)`, which fails with
/// `EEXIST` as atomically as `renameat2`'s `RENAME_NOREPLACE` (which Swift's Glibc lacks). An
/// existing file stays untouched until then. A FIFO or a device given as the output with
/// replacing allowed is written as it is: a rename would replace it.
struct OutputFile {
    let path: String
    /// The hidden file the header is written to.
    let temporaryPath: String

    init(path: String) {
        self.path = path
        let directory = path.pathDirectory
        let hidden = ".\(path.pathLastComponent).capture-\(getpid())"
        temporaryPath = directory.isEmpty ? hidden : directory.pathAppending(hidden)
    }

    /// Refuses an output that exists (unless `replacing`) or cannot be created, before any device
    /// is opened.
    ///
    /// - Throws: `.outputExists` or `.cannotCreate` (73).
    static func check(path: String, replacing: Bool) throws(CaptureError) {
        var status = stat()
        if lstat(path, &status) == 0 {
            // Replacing cannot apply to a directory, so pointing at it would mislead.
            if status.st_mode & S_IFMT == S_IFDIR { throw .cannotCreate(path: path, reason: "it is a directory") }
            if !replacing { throw .outputExists(path: path) }
        }
        try checkFolder(of: path)
        // The hidden name the header is written under is the longest: `.NAME.capture-PID`.
        let longest = ".\(path.pathLastComponent).capture-\(getpid())".utf8.count
        let directory = path.pathDirectory
        let limit = pathconf(directory.isEmpty ? "." : directory, Int32(_PC_NAME_MAX))
        if longest > (limit > 0 ? limit : Int(NAME_MAX)) {
            throw .cannotCreate(
                path: path, reason: "its name is too long (\(path.pathLastComponent.utf8.count) bytes); shorten it")
        }
    }

    /// Refuses a path whose folder is missing or not writable (73).
    static func checkFolder(of path: String) throws(CaptureError) {
        let directory = path.pathDirectory
        let parent = directory.isEmpty ? "." : directory
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw .cannotCreate(path: path, reason: "the directory \(parent) does not exist")
        }
        if access(parent, W_OK) != 0 {
            throw .cannotCreate(path: path, reason: "the directory \(parent) is not writable")
        }
    }

    /// Writes `container`'s header to the hidden file and moves it to `path`.
    ///
    /// - Parameter beforeNaming: called with the file written (the hidden one, or `path` itself
    ///   when written in place) after its header and before it has its name: a segment takes its
    ///   lock there (`SegmentLock`), so that its name is never seen unlocked.
    /// - Throws: `FFmpegError` from `avio_open` (cannot create), the muxer, or `rename` (with
    ///   `EEXIST` when `path` appeared meanwhile). The hidden file is removed then; `path` is
    ///   never touched.
    func create(
        _ container: OutputContainer, options: [String: String], replacing: Bool,
        beforeNaming: (_ written: String) -> Void = { _ in }
    ) throws(FFmpegError) {
        // Standard output (`-`) is written as the pipe it is.
        if path == "-" { return try container.writeHeader(to: "pipe:1", options: options) }
        let special = writesInPlace(replacing: replacing)
        // The `file:` prefix keeps a colon in the path from being read as a protocol name.
        do {
            try container.writeHeader(to: "file:" + (special ? path : temporaryPath), options: options)
        } catch {
            if !special { unlink(temporaryPath) }
            throw error
        }
        beforeNaming(special ? path : temporaryPath)
        if special { return }
        if let failure = moveIntoPlace(replacing: replacing) {
            container.abandon()
            throw FFmpegError(-failure.rawValue, call: "rename")
        }
    }

    /// True for a FIFO or a device given with replacing allowed: it is written as it is, since a
    /// rename would replace it.
    func writesInPlace(replacing: Bool) -> Bool {
        var status = stat()
        return replacing && stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG
    }

    /// Moves the written hidden file to `path`: `rename(2)` when replacing, else `link(2)` and
    /// `unlink(2)`, which fails with `EEXIST` if the name was taken meanwhile. The hidden file is
    /// gone afterwards either way; on failure `path` is untouched.
    ///
    /// - Returns: nil, or the `errno` of the failed move.
    func moveIntoPlace(replacing: Bool) -> Errno? {
        let moved = replacing ? rename(temporaryPath, path) : link(temporaryPath, path)
        let cause = moved == 0 ? nil : Errno.current
        if !replacing || moved != 0 { unlink(temporaryPath) }
        return cause
    }
}
