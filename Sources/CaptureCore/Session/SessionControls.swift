import FoundationEssentials
import Glibc

/// The camera controls a plan asks for: set after the camera is resolved and before its stream
/// starts, and put back when the recording ends however it ends, if asked.
extension RecordingSession {
    /// What `applyControls` wrote and on which camera, for the summary and the restore.
    final class AppliedControls {
        let session: CameraControlSession
        let report: ControlReport

        init(session: CameraControlSession, report: ControlReport) {
            self.session = session
            self.report = report
        }
    }

    /// Reads the profile and checks every value, then writes them: the profile first, the
    /// single settings on top. Runs before the camera streams and before any file exists, so a
    /// bad value leaves nothing behind.
    ///
    /// - Throws: `.usage` (64) for an unknown name, `.fileNotFound` (66) for a missing profile,
    ///   `.notSupported` (69) for a bad value or a profile of another model, as `capture controls`
    ///   does; a write the camera fails (`CameraControlSession.apply`: 74 for an I/O error) once
    ///   what went in has been put back, saying what the camera holds.
    func applyControls() throws(CaptureError) {
        guard let asked = plan.controls, let device = plan.video?.device else { return }
        let profile = try asked.profile.map { path throws(CaptureError) in try ControlProfile.read(path: path) }
        let session = try CameraControlSession(device: device)
        if let profile, !profile.device.sameModel(as: session.identity) {
            throw .notSupported(
                device: session.path,
                reason:
                    "the profile \(asked.profile ?? "") was saved from \(profile.device.modelDescription), not this \(session.identity.modelDescription); load it with '\(.loadControls) \(.force)' first"
            )
        }
        // Both sets are checked before anything is written, the single settings against the
        // controls as the profile leaves them (a profile that turns automatic gain off lets a
        // single setting set the gain); they go on top of the profile's.
        let profilePlan = try profile.map { profile throws(CaptureError) in
            try ControlPlan.make(
                profile.settings, controls: session.controls, device: session.path,
                source: .profile(ignoreUnknown: false))
        }
        let expected = profilePlan?.expectedControls(from: session.controls) ?? session.controls
        let commandLine = try ControlPlan.make(asked.settings, controls: expected, device: session.path)
        // One change: settings the driver refuses take the profile back with them.
        let reports = try session.apply([profilePlan, asked.settings.isEmpty ? nil : commandLine].compactMap { $0 })
        var report = reports.first ?? ControlReport(controls: [], skipped: [])
        for later in reports.dropFirst() { report = report.followed(by: later) }
        appliedControls = AppliedControls(session: session, report: report)
        for entry in report.changed {
            onWarning(
                "\(session.path): \(entry.name): asked \(entry.requested), the driver holds \(entry.value.map { "\($0)" } ?? "?")"
            )
        }
    }

    /// Lets go of the control handle on a camera that was lost (`RecordingPlan.DeviceReconnect`):
    /// a driver may bring the camera back only once every handle on it is closed, and a node
    /// still held keeps its number from the camera that comes back. The report stays for the
    /// summary.
    func releaseControls() {
        guard let applied = appliedControls else { return }
        lostCameraControls = applied.report
        appliedControls = nil
    }

    /// Sets the controls again on a camera that came back: a camera plugged in again starts from
    /// its defaults. What is put back at the end stays what the camera had before the recording,
    /// not what it had when it came back. A failure becomes a warning; the recording goes on.
    func reapplyControls() {
        guard plan.controls != nil, appliedControls == nil else { return }
        do {
            try applyControls()
            if let before = lostCameraControls, let applied = appliedControls {
                var report = applied.report
                for index in report.controls.indices {
                    if let first = before.controls.first(where: { $0.name == report.controls[index].name }) {
                        report.controls[index].previous = first.previous
                    }
                }
                appliedControls = AppliedControls(session: applied.session, report: report)
            }
        } catch {
            onWarning("\(plan.video?.device.name ?? "the camera"): the controls could not be set again: \(error)")
        }
    }

    /// Puts back what `applyControls` changed when the plan asks for it; a control that does not
    /// go back becomes a warning saying what it holds.
    func restoreControls() {
        guard plan.controls?.restore == true, let applied = appliedControls else { return }
        appliedControls = nil
        for problem in applied.session.restore(applied.report) {
            onWarning("restoring the controls: \(problem)")
        }
    }
}
