import CaptureCore

extension OptionSpec {
    static let waitOption = OptionSpec.flag(
        "--wait", optionalValue: "timeout",
        help:
            "Wait for a named camera or microphone that is not there yet (no node, no card, no sound server), for ever or up to TIMEOUT (90, 10m, 1h); write --wait=TIMEOUT before a device index. Indices are not waited for.",
        default: "no waiting: exit 66")
}

/// `--wait [TIMEOUT]` as given: runs the wait before the devices are opened.
struct DeviceWaitOption {
    /// Seconds to wait in all; nil: for ever.
    var timeout: Double?

    /// Nil when `--wait` is not given.
    ///
    /// - Throws: `UsageError` for a TIMEOUT that is no length of time.
    init?(_ arguments: ParsedArguments, command: CommandSpec) throws {
        guard arguments.flag("--wait") else { return nil }
        if let text = arguments.value("--wait") {
            guard let seconds = DurationValue.seconds(text) else {
                throw UsageError(
                    message: "--wait takes a length of time, e.g. 90, 10m or 1h30m, not '\(text)'", command: command)
            }
            guard seconds <= DurationValue.longest else {
                throw UsageError(
                    message: "--wait takes at most \(DurationValue.text(DurationValue.longest)) s, not '\(text)'",
                    command: command)
            }
            timeout = seconds
        }
    }

    /// Waits for `devices`, saying on stderr what is awaited unless `quiet`.
    ///
    /// - Returns: false when a signal stopped the wait (said on stderr): the command ends with 0.
    /// - Throws: `CaptureError` from `DeviceWait.wait`.
    func run(_ devices: [(DeviceName, Device.Kind)], stop: StopSignal, quiet: Bool) throws -> Bool {
        let outcome = try DeviceWait.wait(
            for: devices.map { (name: $0.0, kind: $0.1) }, timeout: timeout, stop: stop
        ) { line in
            if !quiet { printError(line + "\n") }
        }
        if outcome == .stopped {
            printError(
                "capture: stopped by \(StopSignal.name(of: stop.signal)) while waiting for the device; nothing written\n"
            )
            return false
        }
        return true
    }
}
