import CaptureCore

/// `capture probe DEVICE`: what a camera or microphone can do, without recording.
struct ProbeCommand: Command {
    static let spec = CommandSpec(
        name: "probe",
        abstract: "Show every mode of a camera or every format of a microphone, without recording.",
        arguments: [ArgumentSpec(name: "device", help: "A device name or index from 'capture list' (test, /dev/video0, hw:CARD=PCH,DEV=0, pulse:NAME, lavfi:GRAPH).")],
        options: [
            .json,
            .flag("--audio", help: "Read an index as a microphone index (default: camera index)."),
            .verbose,
        ]
    )

    var device: DeviceName
    var json: Bool
    var audio: Bool

    init(_ arguments: ParsedArguments) throws {
        device = try DeviceName(parsing: arguments.positionals[0])
        json = arguments.flag("--json")
        audio = arguments.flag("--audio")
    }

    func run() throws -> Int32 {
        throw CaptureError.failed("probe: not implemented yet")
    }
}
