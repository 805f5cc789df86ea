import CaptureCore
import FoundationEssentials
import Glibc

/// `capture controls DEVICE`: list a camera's controls, set them, reset them, save and load them.
struct ControlsCommand: Command {
    static let spec = CommandSpec(
        name: "controls",
        abstract: "List, set, reset, save and load a camera's controls, or a microphone's mixer.",
        discussion: """
            Without options, lists every control: type, range, step, default, current value, \
            flags and menu entries, as v4l2-ctl -L does. Names are v4l2-ctl's (brightness, \
            gain_automatic, exposure_time_absolute), matched without regard to case; menu values \
            by name or index; booleans as 0/1, true/false or on/off.

            A set is checked whole before anything is written: a value of the wrong type, out of \
            range or off the step, or a read-only control, exits 69 and changes nothing. A set \
            the camera fails part-way is put back and read back, and the error says what holds \
            (exit 74 for an I/O error with the device). Automatic modes are written before the manual values they gate (gain_automatic=0 \
            before gain), then every control is read back and any value the driver changed is \
            reported. --reset and --load apply before --set; --save writes the values after all \
            of them. Controls never start the camera's stream, so they can change while another \
            program records.

            For an ALSA microphone (hw:CARD=ID,DEV=N), lists its card's capture mixer \
            elements as amixer does (capture volume in raw units, percent and dB, capture \
            switch, capture source) and sets them by their mixer names: \
            --set 'Capture=-6dB,on', --set Mic=50%, --set 'Capture Source=Line'. A set the \
            card fails part-way is put back and read back in the same way.
            """,
        arguments: [
            ArgumentSpec(
                name: "device",
                help:
                    "A camera or an ALSA microphone: a name or index from 'capture list' (/dev/video0, hw:CARD=PCH,DEV=0).",
                kind: .device(.any))
        ],
        options: [
            .option("--set", "name=value", help: "Set a control; repeat for more (applied as one set).", repeats: true),
            .flag("--reset", help: "Set every writable control to its default."),
            .option(
                "--save", "file", help: "Write every writable control's value to a JSON profile.",
                kind: .file(extensions: ["json"])),
            .option(
                "--load", "file", help: "Apply a profile written by --save (same checks and order as --set).",
                kind: .file(extensions: ["json"])),
            .flag(
                "--force",
                help: "Let --save replace an existing file; let --load apply a profile made for another model."),
            .flag("--audio", help: "Take the device as a microphone: an index counts microphones."),
            .json,
            .verbose,
        ],
        examples: [
            ("capture controls /dev/video0", "Every control of a camera, with its range and value."),
            (
                "capture controls /dev/video0 --set auto_exposure=1 --set exposure_time_absolute=200",
                "Fix the exposure: manual mode first, then the exposure time."
            ),
            ("capture controls /dev/video0 --save cam.json", "Save every writable control to a profile."),
            ("capture controls hw:CARD=PCH,DEV=0 --set 'Capture=-6dB,on'", "Set a microphone's capture volume."),
        ]
    )

    var device: DeviceName
    var settings: [ControlSetting]
    var reset: Bool
    var save: String?
    var load: String?
    var force: Bool
    var json: Bool
    var audio: Bool

    init(_ arguments: ParsedArguments) throws {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: Self.spec) }
        device = try DeviceName(parsing: arguments.positionals[0])
        settings = try arguments.values("--set").map { text in
            guard let setting = ControlSetting(parsing: text) else {
                throw fail("--set takes NAME=VALUE, e.g. brightness=20, not '\(text)'")
            }
            return setting
        }
        reset = arguments.flag("--reset")
        save = arguments.value("--save")
        load = arguments.value("--load")
        force = arguments.flag("--force")
        json = arguments.flag("--json")
        audio = arguments.flag("--audio")
        if reset && load != nil { throw fail("--reset and --load cannot be combined: each sets every control") }
        if let save, save == load { throw fail("--save and --load name the same file") }
    }

    /// The `--json` document: the camera's identity, its controls after any change, and what
    /// each set did.
    struct Report: Encodable {
        var device: CameraIdentity
        var controls: [CameraControl]
        var applied: [ControlReport]
        var saved: String?
    }

    func run() throws -> Int32 {
        let kind: Device.Kind
        switch device {
        case .alsa, .pulse: kind = .audio
        default: kind = audio ? .audio : .video
        }
        let resolved = try DeviceResolver.resolve(device, kind: kind)
        if resolved.api == .alsa || resolved.api == .pulse { return try runMixer(resolved) }
        guard resolved.api == .v4l2 else {
            throw CaptureError.notSupported(
                device: resolved.name, reason: "has no controls: only V4L2 cameras (/dev/videoN) have controls")
        }
        // An existing --save target is refused before anything changes.
        if let save { try checkSaveTarget(save) }
        let profile = try load.map { path throws(CaptureError) in try ControlProfile.read(path: path) }
        let session = try CameraControlSession(device: resolved)
        // Every set is checked before anything is written: the profile or the reset first, then
        // --set against the controls as those leave them.
        var plans: [(ControlPlan, whole: Bool)] = []
        if let profile {
            if !profile.device.sameModel(as: session.identity) && !force {
                throw CaptureError.notSupported(
                    device: session.path,
                    reason:
                        "the profile \(load!) was saved from \(profile.device.modelDescription), not this \(session.identity.modelDescription); use --force to load it anyway"
                )
            }
            plans.append(
                (
                    try ControlPlan.make(
                        profile.settings, controls: session.controls, device: session.path,
                        source: .profile(ignoreUnknown: force)), true
                ))
        }
        if reset { plans.append((try ControlPlan.reset(controls: session.controls, device: session.path), true)) }
        if !settings.isEmpty {
            let expected = plans.first?.0.expectedControls(from: session.controls) ?? session.controls
            plans.append((try ControlPlan.make(settings, controls: expected, device: session.path), false))
        }
        // One change: a later set the driver refuses takes the earlier ones back with it.
        let reports = Array(zip(try session.apply(plans.map(\.0)), plans.map(\.whole)))
        if let save {
            try write(ControlProfile(identity: session.identity, controls: session.controls), to: save)
        }
        if json {
            try printJSON(
                Report(device: session.identity, controls: session.controls, applied: reports.map(\.0), saved: save))
        } else if reports.isEmpty && save == nil {
            print(ControlsText.list(session.identity, session.controls), terminator: "")
        } else {
            for (report, whole) in reports {
                print(ControlsText.applied(report, controls: session.controls, onlyChanges: whole), terminator: "")
            }
            if let save {
                let count = ControlProfile(identity: session.identity, controls: session.controls).controls.count
                print("Saved \(count) controls of \(session.path) to \(save)")
            }
        }
        return 0
    }

    /// `capture controls` for an ALSA microphone: its card's capture mixer elements, listed or
    /// set.
    private func runMixer(_ device: Device) throws -> Int32 {
        if reset || save != nil || load != nil {
            throw UsageError(
                message: "--reset, --save and --load apply to cameras; a microphone's mixer takes --set",
                command: Self.spec)
        }
        guard device.api == .alsa, let card = ALSAMixer.card(of: device) else {
            throw CaptureError.notSupported(
                device: device.name,
                reason: device.api == .pulse
                    ? "a PulseAudio source has no ALSA mixer; use pactl set-source-volume"
                    : "an ALSA plugin PCM has no card of its own; name the card's microphone (hw:CARD=ID,DEV=N) for its mixer"
            )
        }
        let mixer = try ALSAMixer(card: card)
        let changes = settings.isEmpty ? [] : try mixer.apply(settings, device: device.name)
        if json {
            try printJSON(MixerReport(device: device.name, card: card, mixer: mixer.elements(), applied: changes))
        } else if changes.isEmpty {
            print(ControlsText.mixer(device: device.name, card: card, mixer.elements()), terminator: "")
        } else {
            print(ControlsText.mixerChanges(changes), terminator: "")
        }
        return 0
    }

    /// The `--json` document for a microphone.
    struct MixerReport: Encodable {
        var device: String
        var card: String
        var mixer: [MixerElement]
        var applied: [MixerChange]
    }

    /// Refuses an existing file without --force (73), a directory, or a missing folder.
    private func checkSaveTarget(_ path: String) throws(CaptureError) {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory { throw .cannotCreate(path: path, reason: "it is a directory") }
            if !force { throw .outputExists(path: path) }
        }
        let folder = path.pathDirectory
        let parent = folder.isEmpty ? "." : folder
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw .cannotCreate(path: path, reason: "the directory \(parent) does not exist")
        }
    }

    /// Writes the profile to a hidden file beside `path`, then links it into place (or renames
    /// over it with --force), so a file that appeared meanwhile is never replaced unasked.
    private func write(_ profile: ControlProfile, to path: String) throws(CaptureError) {
        let folder = path.pathDirectory
        let base = path.pathLastComponent
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(base).\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: profile.encoded()) else {
            throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        defer { unlink(temporary) }
        if force {
            if rename(temporary, path) != 0 {
                throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
        } else if link(temporary, path) != 0 {
            if Errno.current == .exists { throw .outputExists(path: path) }
            throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
