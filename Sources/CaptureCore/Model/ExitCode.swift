/// The exit statuses of `capture`, after sysexits(3), defined once: `CaptureError` maps each
/// failure to one, and the help and the manual page print them with their meanings.
public enum ExitCode: Int32, CaseIterable, Sendable {
    case success = 0
    /// Anything else that failed (`EXIT_FAILURE`).
    case failure = 1
    /// The command line is wrong (`EX_USAGE`).
    case usage = 64
    /// No such device or input file (`EX_NOINPUT`).
    case notFound = 66
    /// The device or the hardware encoder cannot do what was asked, or a server or sound server is not
    /// there (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// The output exists or cannot be created (`EX_CANTCREAT`).
    case cannotCreate = 73
    /// Reading or writing failed while recording (`EX_IOERR`).
    case ioError = 74
    /// Another process holds the device (`EX_TEMPFAIL`).
    case busy = 75
    /// The user may not open the device (`EX_NOPERM`).
    case permissionDenied = 77

    /// What the status means, for the help and the manual page.
    public var meaning: String {
        switch self {
        case .success: "success (also a recording stopped by SIGINT, SIGTERM or SIGHUP once its file was finalized)"
        case .failure: "other failure"
        case .usage: "usage error"
        case .notFound: "device not found, or an input file (a controls profile) not found"
        case .unavailable:
            "the device cannot do what was asked (format, size, rate, channels), or its sound server is not "
                + "running, or a server to stream to cannot be reached or refuses the stream at the start, "
                + "or the hardware encoder asked for (--encoder) has no device or does not open"
        case .cannotCreate:
            "the output exists (without --force) or cannot be created, or the preview server's address cannot be "
                + "listened on (in use, not this machine's, or a port below 1024 without the privilege)"
        case .ioError:
            "I/O error while recording (device lost or stalled, disk full); the file is finalized up to there; "
                + "or a recording with only streams whose connection did not come back within --reconnect-timeout"
        case .busy: "device busy"
        case .permissionDenied: "permission denied"
        }
    }
}
