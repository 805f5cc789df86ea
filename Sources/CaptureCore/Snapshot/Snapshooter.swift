internal import CFFmpeg
import FoundationEssentials
import Glibc

/// Takes stills from a camera or video source: `capture snapshot`.
///
/// Checks the output names, opens the source (`SnapshotSource`) and takes the stills from it
/// (`StillSeries`). One thread: `run` blocks.
public final class Snapshooter {
    public let request: SnapshotRequest
    private let stop: StopSignal

    public init(request: SnapshotRequest, stop: StopSignal) {
        self.request = request
        self.stop = stop
    }

    /// Checks what can be checked before any device opens: the output's format and, for a
    /// series, its template.
    ///
    /// - Throws: `CaptureError.usage` (64) for an output with no picture format, a template that
    ///   does not parse, or one whose names would repeat within the series (a finest time field
    ///   coarser than the interval, without `%n`).
    public static func validate(_ request: SnapshotRequest) throws(CaptureError) {
        _ = try StillFormat.forPath(request.output)
        _ = try names(for: request)
    }

    /// Takes the stills.
    ///
    /// - Returns: what was written, and the error that ended the series early if one came after
    ///   the first still (`failure`; the stills before it stay). Fewer stills than asked without
    ///   a failure only when a signal stopped it (`stoppedBy`), none when it came before the first.
    /// - Throws: `CaptureError`, when nothing was written: usage (64) for a bad output name,
    ///   options that do not apply or a template whose names would repeat; the device's errors as
    ///   for a recording (66, 69, 75, 77); an output that exists or cannot be made (73); a device
    ///   that stalls, is lost or ends, or a picture that cannot be written (74).
    public func run() throws(CaptureError) -> SnapshotResult {
        let format = try StillFormat.forPath(request.output)
        let names = try Self.names(for: request)
        for path in names.known { try OutputFile.check(path: path, replacing: request.force) }
        try OutputFile.checkFolder(of: names.template?.path(number: 1, date: Date()) ?? names.known[0])
        let device = try DeviceResolver.resolve(request.device, kind: .video)
        let deadline = ReadDeadline(stop: stop, seconds: request.stallTimeout)
        guard let opened = try SnapshotSource.open(device, request: request, stop: stop, deadline: deadline) else {
            return SnapshotResult(
                summary: SnapshotSummary(
                    device: device.name, input: "", stills: [], stoppedBy: StopSignal.name(of: stop.signal)))
        }
        let series = try StillSeries(
            request: request, stop: stop, deadline: deadline, opened: opened, format: format, names: names)
        do {
            try series.take()
        } catch {
            // The pictures already written stay and are reported with the error that ended the series.
            if series.summary.stills.isEmpty { throw error }
            return SnapshotResult(summary: series.summary, failure: error)
        }
        var summary = series.summary
        if summary.stills.count < request.count, stop.isRequested {
            summary.stoppedBy = StopSignal.name(of: stop.signal)
        }
        return SnapshotResult(summary: summary)
    }

    /// How stills are named: one path (no template, `known` holds it), or a template and the
    /// paths known before any time passes (all of them for a numbered template; none when the
    /// names hold times).
    static func names(for request: SnapshotRequest) throws(CaptureError) -> (template: OutputTemplate?, known: [String])
    {
        if request.count == 1 {
            // One still takes its name as given; fields in its file name are filled in (a dated
            // name from cron), read as a series' are: an unknown field is refused rather than
            // written as it stands, and %% is a '%'. A '%' in the folder alone is the folder's.
            guard request.output.pathLastComponent.contains("%") else { return (nil, [request.output]) }
            let template = try OutputTemplate(request.output, utc: request.utc)
            guard template.hadFields else { return (nil, [request.output.replacing("%%", with: "%")]) }
            return (template, timeless(template) ? [template.path(number: 1, date: Date())] : [])
        }
        let template = try OutputTemplate(request.output, utc: request.utc)
        // Refused before anything is taken, as a segmented recording refuses it: names that change
        // less often than pictures are taken would repeat.
        if !template.numbersFiles, request.interval < template.finestPeriod ?? .infinity {
            throw .usage(
                "\(request.output): its names change "
                    + "\(template.finestPeriod.map { "every \(DurationValue.text($0)) s" } ?? "never"), "
                    + "less often than pictures are taken (every \(DurationValue.text(request.interval)) s); "
                    + "add %n, or a finer time field")
        }
        let known = timeless(template) ? (1...request.count).map { template.path(number: $0, date: Date()) } : []
        return (template, known)
    }

    /// True when the template's names hold no time.
    private static func timeless(_ template: OutputTemplate) -> Bool {
        template.fileName.replacing("%%", with: "").replacing("%n", with: "")
            .contains("%") == false
    }
}
