import CaptureCore

/// `capture probe DEVICE`: what a camera or microphone can do, without recording.
struct ProbeCommand: Command {
    static let spec = CommandSpec(
        name: "probe",
        abstract: "Show every mode of a camera or every format of a microphone, without recording.",
        discussion: """
            For a camera: driver, card, bus info, capabilities, the current input, every pixel \
            format with its frame sizes and frame rates, the current mode, a summary of the \
            highest frame rate per size and the pixel format that reaches it, and the controls. \
            Probing never streams, so it also works on a camera another program is using.
            """,
        arguments: [
            ArgumentSpec(
                name: "device",
                help:
                    "A device name or index from 'capture list' (test, /dev/video0, hw:CARD=PCH,DEV=0, pulse:NAME, lavfi:GRAPH).",
                kind: .device(.any)
            )
        ],
        options: [
            .json,
            .flag(
                "--audio",
                help: "Take the device as a microphone: an index counts microphones, 'test' is the test tone."),
            .verbose,
        ],
        examples: [
            ("capture probe /dev/video0", "Every pixel format, frame size and frame rate of a camera."),
            (
                "capture probe --json hw:CARD=PCH,DEV=0",
                "The sample formats, rates and channels of a microphone, as JSON."
            ),
        ]
    )

    var device: DeviceName
    var json: Bool
    var kind: Device.Kind
    /// True for a name with no prefix and no colon, which ALSA may define or not.
    var bareWord: Bool

    init(_ arguments: ParsedArguments) throws {
        device = try DeviceName(parsing: arguments.positionals[0])
        bareWord = !arguments.positionals[0].contains(":")
        json = arguments.flag("--json")
        // ALSA and PulseAudio names can only be microphones.
        switch device {
        case .alsa, .pulse: kind = .audio
        default: kind = arguments.flag("--audio") ? .audio : .video
        }
    }

    func run() throws -> Int32 {
        let resolved: Device
        do {
            resolved = try DeviceResolver.resolve(device, kind: kind)
        } catch {
            // (A PulseAudio-style name keeps the resolver's hint to use pulse:.)
            guard bareWord, kind == .audio, !device.looksLikePulseSource, case .deviceNotFound(let name, _, _) = error
            else { throw error }
            // A bare word is read as an ALSA name, but the user may have meant any device.
            let list = DeviceDiscovery.list(video: true, audio: true)
            throw CaptureError.deviceNotFound(
                device: name,
                valid: (list.cameras + list.microphones).map(\.name).reduce(into: []) { names, name in
                    if !names.contains(name) { names.append(name) }
                },
                hint: "not a camera, a microphone or a PCM the ALSA configuration defines (see capture list)")
        }
        switch resolved.api {
        case .v4l2:
            return try CameraProbeText.run(resolved, json: json)
        case .alsa, .pulse:
            return try MicrophoneProbeText.run(resolved, json: json)
        case .test, .lavfi:
            let probe = try SourceProbe.probe(resolved, kind: kind)
            if json { try printJSON(probe) } else { print(probe.text, terminator: "") }
            return 0
        }
    }
}
