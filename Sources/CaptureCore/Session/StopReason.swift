/// Why a recording ended, as the summary says it.
enum StopReason: Equatable {
    /// Every input ended by itself (a file or graph ran out).
    case endOfInput
    /// The requested duration was reached.
    case duration
    /// The requested number of frames was written.
    case frames
    /// A signal (`SIGINT`) or a stop requested by code (nil).
    case stopped(signal: String?)
    /// An error ended it; the file is finalized up to there.
    case error

    /// `end of input`, `duration`, `frames`, `SIGINT`, `stop requested`, `error`.
    var text: String {
        switch self {
        case .endOfInput: "end of input"
        case .duration: "duration"
        case .frames: "frames"
        case .stopped(let signal): signal ?? "stop requested"
        case .error: "error"
        }
    }
}
