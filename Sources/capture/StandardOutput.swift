@preconcurrency import Glibc

/// Flushes stdout (`fflush`) and reports whether any write to it failed (`ferror`): a full disk
/// or a closed pipe there must fail the command, not pass silently.
///
/// - Returns: the failure's description (from `errno`), or nil when all of stdout was written.
func standardOutputFailure() -> String? {
    // Only the main thread prints; reading the C global here is safe.
    if fflush(stdout) == 0 && ferror(stdout) == 0 { return nil }
    return String(cString: strerror(errno))
}

/// Hands what stdout holds to its reader now (`fflush`): a line redrawn in place, which ends
/// in no newline, reaches the terminal at once.
func flushStandardOutput() {
    // Only the main thread prints; reading the C global here is safe.
    fflush(stdout)
}
