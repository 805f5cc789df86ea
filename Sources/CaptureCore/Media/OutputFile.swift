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
    /// - Throws: `FFmpegError` from `avio_open` (cannot create), the muxer, or `rename` (with
    ///   `EEXIST` when `path` appeared meanwhile). The hidden file is removed then; `path` is
    ///   never touched.
    func create(_ container: OutputContainer, options: [String: String], replacing: Bool) throws(FFmpegError) {
        var status = stat()
        let special = replacing && stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG
        // The `file:` prefix keeps a colon in the path from being read as a protocol name.
        do {
            try container.writeHeader(to: "file:" + (special ? path : temporaryPath), options: options)
        } catch {
            if !special { unlink(temporaryPath) }
            throw error
        }
        if special { return }
        let moved = replacing ? rename(temporaryPath, path) : link(temporaryPath, path)
        if moved == 0 && !replacing { unlink(temporaryPath) }
        if moved != 0 {
            let error = FFmpegError(-errno, call: "rename")
            container.abandon()
            unlink(temporaryPath)
            throw error
        }
    }
}
