import Glibc

/// Probes microphones: the hardware parameter space of an ALSA PCM, the sample spec of a
/// PulseAudio source. Nothing is recorded and no hardware parameter is set.
public enum MicrophoneProber {
    /// What `device` (an ALSA or PulseAudio device from `DeviceResolver`) can do.
    ///
    /// - Throws: `.busy` (75) naming the process that holds the PCM; `.permissionDenied` (77)
    ///   naming the `audio` group; `.deviceNotFound` (66) when the PCM or source has gone;
    ///   `.notSupported` (69) for a device that is not a microphone; `.failed` (1) with
    ///   libasound's reason otherwise.
    public static func probe(_ device: Device) throws(CaptureError) -> MicrophoneProbe {
        switch device.api {
        case .alsa:
            return MicrophoneProbe(device: device, alsa: try alsaCapabilities(device))
        case .pulse:
            return MicrophoneProbe(device: device, pulse: try PulseSourceProbe.capabilities(of: device))
        case .v4l2, .test, .lavfi:
            throw .notSupported(device: device.name, reason: "not an ALSA or PulseAudio microphone")
        }
    }

    private static func alsaCapabilities(_ device: Device) throws(CaptureError) -> ALSACapabilities {
        // Listing already found the node closed to us; libasound would only say it cannot find
        // the card (it needs the control device to resolve CARD=), which hides the real cause.
        if !device.accessible, device.reason?.hasPrefix("permission denied") == true {
            throw .permissionDenied(device: device.name, group: "audio")
        }
        // Opening reads the configuration, whose pulse hook may print through libpulse.
        let result = StandardErrorRoute.routing { () -> Result<ALSACapabilities, CaptureError> in
            do throws(ALSAControl.Failure) {
                return .success(try ALSAPCM(name: device.name).capabilities())
            } catch {
                return .failure(openError(device, code: error.code))
            }
        }
        return try result.get()
    }

    /// The user-facing error for a failed `snd_pcm_open` or hw_params query.
    static func openError(_ device: Device, code: Int32) -> CaptureError {
        if let failure = CaptureError.opening(device, failedWith: Errno(rawValue: -code)) { return failure }
        var reason = "cannot open for capture: \(ALSAText.error(code))"
        if let line = LibraryLog.shared.takeLastError() { reason += " (\(line))" }
        return .failed("\(device.name): \(reason)")
    }
}
