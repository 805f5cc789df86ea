import Glibc

/// Marks a segment as open in some capture process, so that another recorder's retention (same
/// template, same folder: its names match) never deletes a file that is still being written or
/// finished.
///
/// The writer holds a shared `flock(2)` on a descriptor of its own from the moment the segment's
/// header is written until the segment is finished; before deleting a file, retention asks for an
/// exclusive lock without waiting on a fresh descriptor, which fails while any writer holds one.
/// `flock` rather than `fcntl` locks: a `flock` lock belongs to the open file description, so it
/// also keeps this process's own retention off, and the kernel drops it when a writer dies.
enum SegmentLock {
    /// Opens `path` and holds a shared lock on it.
    ///
    /// - Returns: the descriptor that holds the lock, for `release`; -1 when the file cannot be
    ///   opened or locked (the segment is then written unmarked, as without this).
    static func hold(_ path: String) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return -1 }
        if flock(descriptor, LOCK_SH) != 0 {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// Drops a lock `hold` took (closing its descriptor); -1 is ignored.
    static func release(_ descriptor: Int32) {
        if descriptor >= 0 { close(descriptor) }
    }

    /// True when a capture process holds `path` open (`hold`), or it cannot be opened to find out.
    static func isHeld(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }

    /// Deletes `path` unless a capture process holds it open (`hold`), taking the exclusive lock
    /// for the moment of the `unlink(2)`.
    ///
    /// - Returns: the bytes the file held when it was deleted; nil when it is held, cannot be
    ///   opened to find out, or the unlink failed.
    static func deleteIfFree(_ path: String) -> Int64? {
        // O_NONBLOCK: a FIFO put at the name since the folder was listed must not block the open.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, fstat(descriptor, &status) == 0, unlink(path) == 0 else {
            return nil
        }
        return Int64(status.st_size)
    }
}
