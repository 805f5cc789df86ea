internal import CFFmpeg
import FoundationEssentials
import Glibc

/// The pictures of one `capture snapshot` run, taken from an opened source: reads frames, drops
/// them until the source has settled, then decodes each still and encodes it to the output's
/// format, or, for a camera's MJPEG frame written to .jpg, checks that it decodes and writes it
/// as it came. Used only by the thread running `Snapshooter.run`.
final class StillSeries {
    private let request: SnapshotRequest
    private let stop: StopSignal
    private let deadline: ReadDeadline
    private let opened: SnapshotSource
    private let format: StillFormat
    private let names: (template: OutputTemplate?, known: [String])
    /// True when the camera's JPEG frames are written as they came.
    private let copies: Bool
    private let decoder: Decoder
    private let filter: BitstreamFilter?
    private let encoder: StillEncoder
    private let packet: Packet
    /// The last picture decoded.
    private var frame: Frame
    private(set) var summary: SnapshotSummary

    /// Frames read from the stream, and the time (seconds, the source's timestamps) of the
    /// first of them and of the first still.
    private var delivered = 0
    private var firstTime: Double?
    private var firstStillTime: Double?
    /// Frames in a row whose picture did not decode.
    private var undecodable = 0
    private let started = SessionClock.now()
    /// The names written in this run: a template that gives one twice (pictures closer together
    /// in wall time than its finest field) must not replace its own picture, whatever --force says.
    private var written = Set<String>()
    /// Reads of the camera failing now, tried again until the stall timeout (`ReadRetry`).
    private var failing: ReadRetry?

    /// Frames in a row that may fail to decode before the device counts as broken.
    static let undecodableLimit = 30

    /// - Throws: `CaptureError.failed` when FFmpeg cannot set up the decoder or the filter.
    init(
        request: SnapshotRequest, stop: StopSignal, deadline: ReadDeadline, opened: SnapshotSource,
        format: StillFormat, names: (template: OutputTemplate?, known: [String])
    ) throws(CaptureError) {
        self.request = request
        self.stop = stop
        self.deadline = deadline
        self.opened = opened
        self.format = format
        self.names = names
        copies = format == .jpeg && opened.info.codec == "mjpeg"
        decoder = try media("opening the video decoder") { () throws(FFmpegError) in
            try Decoder(input: opened.input, stream: opened.index)
        }
        filter =
            try copies
            ? media("opening the mjpeg2jpeg filter") { () throws(FFmpegError) in
                try BitstreamFilter("mjpeg2jpeg", input: opened.input, stream: opened.index)
            } : nil
        encoder = StillEncoder(format: format)
        packet = try media("reading") { () throws(FFmpegError) in try Packet() }
        frame = try media("decoding") { () throws(FFmpegError) in try Frame() }
        summary = SnapshotSummary(device: opened.device.name, input: opened.inputDescription, stills: [])
    }

    /// Takes stills until the request's count or a stop.
    ///
    /// - Throws: what ended the series: the device stalled, was lost or ended, sends pictures
    ///   that do not decode, or a picture that cannot be written (74, 73).
    func take() throws(CaptureError) {
        // Intra-only streams (raw, MJPEG) decode a picture from its own packet; others need every
        // packet from a keyframe on.
        let decodesAll = !opened.info.isIntraOnly
        while summary.stills.count < request.count {
            guard try read() else { return }
            guard packet.streamIndex == opened.index else { continue }
            failing = nil
            deadline.fed()
            let time =
                packet.pts.map { Double($0) * opened.info.timeBase.doubleValue }
                ?? Double(SessionClock.now() - started) / 1e6
            let first = firstTime ?? time
            firstTime = first
            let number = delivered
            delivered += 1
            let due = isDue(time: time, first: first, number: number)
            if !due && !decodesAll { continue }
            // A still needs a picture that decodes, even when its bytes are copied.
            let decoded = decode()
            if !due { continue }
            if !decoded || (copies && !packet.isWholeJPEG) {
                undecodable += 1
                if undecodable >= Self.undecodableLimit {
                    throw .io(
                        subject: opened.source.url,
                        reason: "\(undecodable) frames in a row did not decode; the camera sends broken pictures")
                }
                continue
            }
            undecodable = 0
            try write(try pictureBytes(), time: time, first: first, number: number)
        }
    }

    /// Reads the next packet into `packet`, reading again through a camera's transient errors.
    ///
    /// - Returns: false when a stop came.
    /// - Throws: the device stalled, was lost, ended or failed (74).
    private func read() throws(CaptureError) -> Bool {
        while true {
            if stop.isRequested { return false }
            let got: Bool
            do throws(FFmpegError) {
                got = try opened.input.read(into: packet)
            } catch {
                if stop.isRequested { return false }
                try judge(error)
                continue
            }
            if got { return true }
            let next = request.count == 1 ? "the still" : "still \(summary.stills.count + 1)"
            throw .io(subject: opened.device.name, reason: "the source ended after \(delivered) frames, before \(next)")
        }
    }

    /// Decides what a failed read means: a transient error is waited out (up to the stall
    /// timeout); anything else ends the series.
    private func judge(_ error: FFmpegError) throws(CaptureError) {
        let url = opened.source.url
        let timeout = DurationValue.text(request.stallTimeout)
        if deadline.passed {
            throw .io(
                subject: url,
                reason: failing.map { "\($0.lacking) for \(timeout) s; the device stalled" }
                    ?? "no frame within \(timeout) s; the device stalled")
        }
        if ReadRetry.isTransient(error, device: opened.device) {
            let now = SessionClock.now()
            if failing == nil { failing = ReadRetry(at: now, error: error) } else { failing!.add(at: now) }
            usleep(ReadRetry.pause)
            return
        }
        switch error.errno {
        case .noSuchDevice, .noSuchDeviceOrAddress, .ioError:
            throw .io(subject: url, reason: "the device was lost: \(error)")
        default:
            throw .io(subject: url, reason: "reading failed: \(error)")
        }
    }

    /// True when the frame captured at `time` (the `number`th) is the next still: the first once
    /// the source has settled (or `--skip` frames went by), the others every interval after it.
    private func isDue(time: Double, first: Double, number: Int) -> Bool {
        if let firstStillTime {
            return time - firstStillTime >= Double(summary.stills.count) * request.interval - 0.001
        }
        if let skip = request.skip { return number >= skip }
        return time - first >= (request.settle ?? SnapshotRequest.defaultSettle) - 0.001
    }

    /// Decodes `packet`; true when it gave a picture that is not corrupt (then in `frame`).
    ///
    /// A receive that finds nothing empties the frame it is given (`avcodec_receive_frame`
    /// unreferences it first), so each picture gets a frame of its own.
    private func decode() -> Bool {
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
        return decoded
    }

    /// The bytes of the still: the camera's JPEG made whole (`mjpeg2jpeg`), or `frame` encoded.
    private func pictureBytes() throws(CaptureError) -> [UInt8] {
        if let filter {
            return try media("mjpeg2jpeg") { () throws(FFmpegError) in
                try filter.send(packet)
                let out = try Packet()
                guard try filter.receive(into: out) else {
                    throw FFmpegError(CFFmpeg_AVERROR(EINVAL), call: "av_bsf_receive_packet")
                }
                return out.bytes
            }
        }
        return try media("encoding the \(format.rawValue) picture") { () throws(FFmpegError) in
            try encoder.encode(frame)
        }
    }

    /// Writes the next still's file and notes it in the summary.
    private func write(_ bytes: [UInt8], time: Double, first: Double, number: Int) throws(CaptureError) {
        let path = names.template?.path(number: summary.stills.count + 1, date: Date()) ?? names.known[0]
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
}
