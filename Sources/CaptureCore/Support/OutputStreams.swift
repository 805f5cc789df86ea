@preconcurrency import Glibc

/// Flushes stdout and stderr (`fflush` on each), never every stream at once: `fflush(NULL)` also
/// locks stdin, which a thread blocked reading it (clip triggers on standard input) holds, and
/// would wait for that thread's next line.
public func flushOutputStreams() {
    fflush(stdout)
    fflush(stderr)
}
