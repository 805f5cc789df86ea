import FoundationEssentials

/// `record --control NAME=VALUE`, `--controls-from FILE` and `--restore-controls`: the camera's
/// controls set after its device is resolved and before its stream starts, and put back when the
/// recording ends however it ends.
extension Recorder {
    /// What `applyControls` wrote and on which camera, for the summary and the restore.
    final class AppliedControls {
        let session: CameraControlSession
        let report: ControlReport

        init(session: CameraControlSession, report: ControlReport) {
            self.session = session
            self.report = report
        }
    }

    /// True when the request asks for any control.
    var wantsControls: Bool { !request.controls.isEmpty || request.controlsProfile != nil }

    /// Reads the profile and checks every value, then writes them: the profile first, the
    /// `--control` values on top. Runs before the camera streams and before any file exists, so a
    /// bad value leaves nothing behind.
    ///
    /// - Throws: `.usage` (64) for controls without a V4L2 camera or an unknown name,
    ///   `.fileNotFound` (66) for a missing profile, `.notSupported` (69) for a bad value or a
    ///   profile of another model, as `capture controls` does.
    func applyControls(to device: Device?) throws(CaptureError) {
        guard wantsControls else { return }
        guard let device, device.api == .v4l2 else {
            throw .usage("--control and --controls-from need a V4L2 camera as --video (e.g. /dev/video0)")
        }
        let profile = try request.controlsProfile.map { path throws(CaptureError) in
            try ControlProfile.read(path: path)
        }
        let session = try CameraControlSession(device: device)
        if let profile, !profile.device.sameModel(as: session.identity) {
            throw .notSupported(
                device: session.path,
                reason:
                    "the profile \(request.controlsProfile!) was saved from \(profile.device.modelDescription), not this \(session.identity.modelDescription); load it with 'capture controls --load --force' first"
            )
        }
        // Both sets are checked before anything is written, the --control values against the
        // controls as the profile leaves them (a profile that turns automatic gain off lets a
        // --control set the gain); they go on top of the profile's.
        let profilePlan = try profile.map { profile throws(CaptureError) in
            try ControlPlan.make(
                profile.settings, controls: session.controls, device: session.path,
                source: .profile(ignoreUnknown: false))
        }
        let expected = profilePlan?.expectedControls(from: session.controls) ?? session.controls
        let commandLine = try ControlPlan.make(request.controls, controls: expected, device: session.path)
        var report = ControlReport(controls: [], skipped: [])
        if let profilePlan { report = try session.apply(profilePlan) }
        if !request.controls.isEmpty {
            do {
                report = report.followed(by: try session.apply(commandLine))
            } catch {
                _ = session.restore(report)
                throw error
            }
        }
        appliedControls = AppliedControls(session: session, report: report)
        for entry in report.changed {
            onWarning(
                "\(session.path): \(entry.name): asked \(entry.requested), the driver holds \(entry.value.map { "\($0)" } ?? "?")"
            )
        }
    }

    /// Puts back what `applyControls` changed when --restore-controls asked for it; a value the
    /// driver refuses becomes a warning.
    func restoreControls() {
        guard request.restoreControls, let applied = appliedControls else { return }
        appliedControls = nil
        for problem in applied.session.restore(applied.report) {
            onWarning("restoring the controls: \(problem)")
        }
    }
}
