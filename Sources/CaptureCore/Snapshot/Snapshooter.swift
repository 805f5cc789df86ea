internal import CFFmpeg
import FoundationEssentials
import Glibc

/// Takes stills from a camera or video source: `capture snapshot`.
///
/// The device is resolved and opened as for a recording (the same names, mode selection, and
/// busy, permission and missing-device errors); frames are dropped until the source has settled;
/// then each still is decoded and encoded to the output's format, or, for a camera's MJPEG frame
/// written to .jpg, checked to decode and written as it came. One thread: `run` blocks.
public final class Snapshooter {
    public let request: SnapshotRequest
    private let stop: StopSignal

    public init(request: SnapshotRequest, stop: StopSignal) {
        self.request = request
        self.stop = stop
    }

    /// Frames in a row that may fail to decode before the device counts as broken.
    static let undecodableLimit = 30

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
        let entry = try DeviceSurvey.entry(for: device, kind: .video)
        var size = request.videoSize
        if let probe = entry.camera, size == nil {
            size = try ModeSelector.largestSize(inputFormat: request.inputFormat, from: probe)
        }
        // A read that blocks is interrupted by a stop (the stop signal's flag) or once the device
        // has sent nothing for the stall timeout (the flag's deadline, moved on by every packet).
        let interrupt = stop.interrupt
        let limit = Int64(request.stallTimeout * 1e6)
        var lastFed = SessionClock.now()
        func fed() {
            lastFed = SessionClock.now()
            interrupt.setDeadline(lastFed + limit)
        }
        func stalled() -> Bool { !stop.isRequested && SessionClock.now() >= lastFed + limit }
        fed()
        defer { interrupt.clearDeadline() }
        let source = try InputSource.make(
            device, kind: .video, video: VideoRequest(frameSize: size, inputFormat: request.inputFormat),
            camera: entry.camera)
        let input: InputContainer
        do {
            input = try source.open(interrupt: interrupt)
        } catch {
            // A stop while the device opens ends as a stop before the first picture, not an error.
            if stop.isRequested {
                return SnapshotResult(
                    summary: SnapshotSummary(
                        device: device.name, input: "", stills: [], stoppedBy: StopSignal.name(of: stop.signal)))
            }
            if stalled() {
                throw .io(
                    subject: source.url,
                    reason: "it did not open within \(DurationValue.text(request.stallTimeout)) s; the device stalled")
            }
            throw error
        }
        // The stall timeout counts from here: opening a camera may take its time.
        fed()
        if !source.live {
            do throws(FFmpegError) { try input.findStreamInfo() } catch {
                throw InputSource.captureError(error, device: device, kind: .video)
            }
        }
        guard let index = input.firstStream(of: .video) else {
            if device.api == .lavfi { throw .usage("\(device.name): the lavfi graph gives no video") }
            throw .notSupported(device: device.name, reason: "gives no video")
        }
        let info = input.info(of: index)
        if let mode = source.mode, mode.width != info.width || mode.height != info.height {
            throw .notSupported(
                device: source.url,
                reason: "asked for \(mode) but the driver applied \(info.width ?? 0)x\(info.height ?? 0)")
        }
        let copies = format == .jpeg && info.codec == "mjpeg"
        let decoder = try media("opening the video decoder") { () throws(FFmpegError) in
            try Decoder(input: input, stream: index)
        }
        let filter =
            try copies
            ? media("opening the mjpeg2jpeg filter") { () throws(FFmpegError) in
                try BitstreamFilter("mjpeg2jpeg", input: input, stream: index)
            } : nil
        let encoder = StillEncoder(format: format)
        let timeBase = info.timeBase.doubleValue
        var summary = SnapshotSummary(
            device: device.name,
            input: "\(info.pixelFormat.flatMap { info.codec == "rawvideo" ? $0 : nil } ?? info.codec) "
                + "\(info.width ?? 0)x\(info.height ?? 0)",
            stills: [])

        let packet = try media("reading") { () throws(FFmpegError) in try Packet() }
        var frame = try media("decoding") { () throws(FFmpegError) in try Frame() }
        var delivered = 0
        var firstTime: Double?
        var firstStillTime: Double?
        var undecodable = 0
        let started = SessionClock.now()
        // Intra-only streams (raw, MJPEG) decode a picture from its own packet; others need every
        // packet from a keyframe on.
        let decodesAll = !info.isIntraOnly
        // The names written in this run: a template that gives one twice (pictures closer together
        // in wall time than its finest field) must not replace its own picture, whatever --force says.
        var written = Set<String>()
        // Reads of the camera failing now, tried again until the stall timeout (`ReadRetry`).
        var failing: ReadRetry?
        do throws(CaptureError) {
            while summary.stills.count < request.count {
                if stop.isRequested { break }
                do {
                    guard try input.read(into: packet) else {
                        throw CaptureError.io(
                            subject: device.name,
                            reason:
                                "the source ended after \(delivered) frames, before \(request.count == 1 ? "the still" : "still \(summary.stills.count + 1)")"
                        )
                    }
                } catch let error as FFmpegError {
                    if stop.isRequested { break }
                    if stalled() {
                        throw .io(
                            subject: source.url,
                            reason: failing.map {
                                "\($0.lacking) for \(DurationValue.text(request.stallTimeout)) s; the device stalled"
                            } ?? "no frame within \(DurationValue.text(request.stallTimeout)) s; the device stalled")
                    }
                    if ReadRetry.isTransient(error, device: device) {
                        let now = SessionClock.now()
                        if failing == nil { failing = ReadRetry(at: now, error: error) } else { failing!.add(at: now) }
                        usleep(ReadRetry.pause)
                        continue
                    }
                    if [ENODEV, EIO, ENXIO].contains(error.errno ?? 0) {
                        throw .io(subject: source.url, reason: "the device was lost: \(error)")
                    }
                    throw .io(subject: source.url, reason: "reading failed: \(error)")
                } catch let error as CaptureError {
                    throw error
                } catch {
                    throw .failed("\(error)")
                }
                guard packet.streamIndex == index else { continue }
                failing = nil
                fed()
                let time =
                    packet.pts.map { Double($0) * timeBase } ?? Double(SessionClock.now() - started) / 1e6
                let first = firstTime ?? time
                firstTime = first
                let number = delivered
                delivered += 1
                let due: Bool
                if let firstStillTime {
                    due = time - firstStillTime >= Double(summary.stills.count) * request.interval - 0.001
                } else if let skip = request.skip {
                    due = number >= skip
                } else {
                    due = time - first >= (request.settle ?? SnapshotRequest.defaultSettle) - 0.001
                }
                if !due && !decodesAll { continue }
                // Decode: a still needs a picture that decodes, even when its bytes are copied.
                // A receive that finds nothing empties the frame it is given (`avcodec_receive_frame`
                // unreferences it first), so each picture gets a frame of its own.
                var decoded = false
                do throws(FFmpegError) {
                    try decoder.send(packet)
                    while true {
                        let next = try Frame()
                        guard try decoder.receive(into: next) else { break }
                        decoded = !next.isCorrupt
                        frame = next
                    }
                } catch {
                    decoded = false
                }
                if !due { continue }
                if !decoded || (copies && !packet.isWholeJPEG) {
                    undecodable += 1
                    if undecodable >= Self.undecodableLimit {
                        throw .io(
                            subject: source.url,
                            reason: "\(undecodable) frames in a row did not decode; the camera sends broken pictures")
                    }
                    continue
                }
                undecodable = 0
                let bytes: [UInt8]
                if let filter {
                    bytes = try media("mjpeg2jpeg") { () throws(FFmpegError) in
                        try filter.send(packet)
                        let out = try Packet()
                        guard try filter.receive(into: out) else {
                            throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "av_bsf_receive_packet")
                        }
                        return out.bytes
                    }
                } else {
                    bytes = try media("encoding the \(format.rawValue) picture") { () throws(FFmpegError) in
                        try encoder.encode(frame)
                    }
                }
                let stillNumber = summary.stills.count + 1
                let path = names.template?.path(number: stillNumber, date: Date()) ?? names.known[0]
                if written.contains(path) {
                    throw .cannotCreate(
                        path: path,
                        reason: "the template gave this name to an earlier picture of this series; "
                            + "add %n or a finer time field to it")
                }
                try StillFile.write(bytes, to: path, replacing: request.force)
                written.insert(path)
                if firstStillTime == nil { firstStillTime = time }
                summary.stills.append(
                    .init(
                        path: path, format: format.rawValue, width: frame.width, height: frame.height,
                        bytes: bytes.count, frame: number, time: time - first, copied: copies))
            }
        } catch {
            // The pictures already written stay and are reported with the error that ended the series.
            if summary.stills.isEmpty { throw error }
            return SnapshotResult(summary: summary, failure: error)
        }
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
