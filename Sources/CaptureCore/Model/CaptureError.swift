/// A failure the user acts on: each case has one exit code and one line that names the device or
/// file, the cause, and the fix where one is known.
///
/// The exit codes follow sysexits(3), as the README's table documents. Messages point at request
/// settings through `OptionText`, never by a command-line spelling: `description` words them
/// plainly, a front end renders them with its own names (`description(naming:)`).
public enum CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command line is wrong (exit 64).
    case usage(OptionText)
    /// No device of that name (exit 66). `valid` lists names that would work.
    case deviceNotFound(device: String, valid: [String], hint: OptionText?)
    /// The name is a device of the other kind (an ALSA name given as the video device) (exit 66).
    /// `what` says what it is ("an ALSA microphone name"); `valid` lists the devices of the kind
    /// asked for, `validKind` names them ("cameras").
    case wrongKind(device: String, what: String, valid: [String], validKind: String)
    /// An input file (a controls profile) cannot be read (exit 66).
    case fileNotFound(path: String, reason: String)
    /// The device exists but cannot do what was asked: format, size, rate, channels (exit 69).
    case notSupported(device: String, reason: OptionText)
    /// A server to stream to cannot be reached or refuses the stream at the start (exit 69).
    /// `subject` is the URL with its secrets replaced by `***`.
    case unreachable(subject: String, reason: String)
    /// The preview server cannot listen at `address` (`HOST:PORT`): the port is in use, or the
    /// address is not this machine's (exit 73). Found before any device opens.
    case cannotListen(address: String, reason: String)
    /// The output file exists and overwriting was not asked for (exit 73).
    case outputExists(path: String)
    /// The output file cannot be created (exit 73).
    case cannotCreate(path: String, reason: String)
    /// Reading the device or writing the file failed while recording; the file is finalized up to
    /// there (exit 74).
    case io(subject: String, reason: String)
    /// Another process holds the device (exit 75). `holder` names it when it can be found.
    case busy(device: String, holder: String?)
    /// The user may not open the device (exit 77). `group` is the group that grants access.
    case permissionDenied(device: String, group: String?)
    /// Anything else (exit 1).
    case failed(String)
    /// What was asked cannot be recorded as asked, found before any device opened (`RecordingPlanner`).
    case plan(RecordingPlanError)

    /// The process exit status for this error.
    public var code: ExitCode {
        switch self {
        case .usage, .plan: .usage
        case .deviceNotFound, .wrongKind, .fileNotFound: .notFound
        case .notSupported, .unreachable: .unavailable
        case .outputExists, .cannotCreate, .cannotListen: .cannotCreate
        case .io: .ioError
        case .busy: .busy
        case .permissionDenied: .permissionDenied
        case .failed: .failure
        }
    }

    /// `code` as the process exits with it.
    public var exitCode: Int32 { code.rawValue }

    /// One line for the user, without the `Error: ` prefix, options in plain words.
    public var description: String { message.description }

    /// One line for the user with each option spelled by `naming` (given the option and the value
    /// the message shows, if any): how a command line names its flags.
    public func description(naming: (RequestOption, String?) -> String) -> String {
        message.rendered(naming: naming)
    }

    /// The line, options not yet named.
    public var message: OptionText {
        switch self {
        case .usage(let message):
            return message
        case .plan(let error):
            return error.message
        case .deviceNotFound(let device, let valid, let hint):
            var line: OptionText = "\(device): no such device"
            if let hint { line = "\(line); \(hint)" }
            return valid.isEmpty ? line : "\(line). Valid devices: \(valid.joined(separator: ", "))"
        case .wrongKind(let device, let what, let valid, let validKind):
            return "\(device) is \(what); \(validKind): \(valid.joined(separator: ", "))"
        case .fileNotFound(let path, let reason):
            return "\(path): \(reason)"
        case .notSupported(let device, let reason):
            return "\(device): \(reason)"
        case .unreachable(let subject, let reason):
            return "\(subject): cannot stream there: \(reason)"
        case .cannotListen(let address, let reason):
            return
                "\(address): cannot serve the preview there: \(reason); choose another address or port with \(.serve)"
        case .outputExists(let path):
            return "\(path): file exists; use \(.force) to overwrite it or choose another name"
        case .cannotCreate(let path, let reason):
            return "\(path): cannot create the output file: \(reason)"
        case .io(let subject, let reason):
            return "\(subject): \(reason)"
        case .busy(let device, let holder):
            let by = holder.map { " by \($0)" } ?? ""
            return "\(device): device is busy (in use\(by)); stop the other program and try again"
        case .permissionDenied(let device, let group):
            let fix = group.map { "; join the '\($0)' group (sudo usermod -aG \($0) $USER, then log in again)" } ?? ""
            return "\(device): permission denied\(fix)"
        case .failed(let message):
            return OptionText(stringLiteral: message)
        }
    }
}
