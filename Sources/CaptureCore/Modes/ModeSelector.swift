internal import CFFmpeg
import FoundationEssentials
import Glibc

/// What the user asked of a camera: the frame size, frame rate and input format, and whether
/// the camera's compressed packets are to be copied (`VideoCodec.copy`).
public struct VideoRequest: Hashable, Sendable {
    public var frameSize: FrameDimensions?
    /// Frames per second.
    public var frameRate: Rational?
    /// A fourcc ("MJPG", "YUYV") or the name FFmpeg's v4l2 input takes ("mjpeg", "yuyv422",
    /// "nv12", "h264").
    public var inputFormat: String?
    /// Only compressed formats qualify: their packets are written as they come.
    public var copy: Bool
    /// MMAP buffers for a camera read by capture's own V4L2 reader; nil: its default.
    public var buffers: Int? = nil
    /// Which reader records the camera; nil: the one `InputSource` chooses.
    public var reader: V4L2Reader? = nil

    public init(
        frameSize: FrameDimensions? = nil, frameRate: Rational? = nil, inputFormat: String? = nil, copy: Bool = false,
        buffers: Int? = nil, reader: V4L2Reader? = nil
    ) {
        self.frameSize = frameSize
        self.frameRate = frameRate
        self.inputFormat = inputFormat
        self.copy = copy
        self.buffers = buffers
        self.reader = reader
    }
}

/// The mode to open a camera in, as FFmpeg's v4l2 input takes it: `input_format`,
/// `video_size`, `framerate`.
public struct VideoMode: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The V4L2 pixel format, e.g. "YUYV".
    public var fourcc: String
    /// The value for the v4l2 input's `input_format` option: a pixel format name for raw video,
    /// a codec name for compressed video ("yuyv422", "mjpeg").
    public var inputFormat: String
    public var width: Int
    public var height: Int
    /// Frames per second; nil when the driver reports none (then do not set `framerate`).
    public var frameRate: Rational?
    /// True when the rate is not chosen but follows the input signal (no frame intervals listed):
    /// asking the driver for another rate would be ignored.
    public var rateFromInput: Bool
    public var compressed: Bool
    /// True when the format was enumerated for the multiplanar buffer type only.
    public var multiplanar: Bool

    public var size: FrameDimensions { FrameDimensions(width: width, height: height) }

    /// "YUYV 640x480 at 25 fps".
    public var description: String {
        "\(fourcc.trimmingTrailingSpaces) \(width)x\(height)"
            + (frameRate.map { " at \($0.decimalDescription) fps" } ?? "")
    }
}

/// Chooses a camera mode for a request, over a probe's answers (pure: no device access).
///
/// Rules: with size and rate, a pixel format that reaches both, raw before compressed; with only
/// a size, the highest rate at that size; with only a rate, the largest size reaching it; with
/// neither, the largest size reaching 25 fps, else the highest rate. Among equal choices, the
/// camera's current format first, then the driver's order. Only formats a reader can capture
/// are considered (`usableFormats`).
public enum ModeSelector {
    /// The rate below which a default mode is not chosen for its size.
    public static let smoothRate = Rational(25, 1)

    /// Picks the mode for `request` from `probe`.
    ///
    /// - Throws: `CaptureError.notSupported` (69) naming the request and the nearest modes on
    ///   offer, or the formats on offer when `inputFormat` names one the camera lacks;
    ///   `CaptureError.usage` (64) when `inputFormat` is no format name at all.
    public static func select(_ request: VideoRequest, from probe: CameraProbe) throws(CaptureError) -> VideoMode {
        let formats = try formats(for: request, from: probe)
        let candidates = self.candidates(formats, probe: probe, size: request.frameSize)
        let preference = preferenceOrder(formats, current: probe.current?.fourcc)

        func best(_ list: [(Candidate, Rational?)], by better: (Candidate, Candidate) -> Bool) -> VideoMode? {
            list.min { a, b in
                if better(a.0, b.0) { return true }
                if better(b.0, a.0) { return false }
                return preference[a.0.format.fourcc + a.0.format.bufferType]! < preference[
                    b.0.format.fourcc + b.0.format.bufferType]!
            }.map { $0.0.mode(rate: $0.1) }
        }

        let found: VideoMode?
        switch (request.frameSize, request.frameRate) {
        case (let size?, let rate?):
            let reaching = candidates.filter { $0.size == size }.compactMap { c in
                c.reach(rate).map { (c, Optional($0)) }
            }
            found = best(reaching, by: { _, _ in false })
        case (let size?, nil):
            let atSize = candidates.filter { $0.size == size }
            found = best(
                atSize.map { ($0, $0.highest) }, by: { ($0.highest ?? Rational(0, 1)) > ($1.highest ?? Rational(0, 1)) }
            )
        case (nil, let rate?):
            let reaching = candidates.compactMap { c in c.reach(rate).map { (c, Optional($0)) } }
            found = best(reaching, by: { $0.size.area > $1.size.area })
        case (nil, nil):
            let smooth = candidates.filter { ($0.highest ?? Rational(0, 1)) >= smoothRate }
            let largest = best(smooth.map { ($0, $0.highest) }) { a, b in
                a.size.area != b.size.area ? a.size.area > b.size.area : a.highest! > b.highest!
            }
            let fastest = best(candidates.map { ($0, $0.highest) }) { a, b in
                let ra = a.highest ?? Rational(0, 1)
                let rb = b.highest ?? Rational(0, 1)
                return ra != rb ? ra > rb : a.size.area > b.size.area
            }
            guard let mode = largest ?? fastest else {
                throw .notSupported(device: probe.path, reason: "the camera lists no frame sizes for \(offered(probe))")
            }
            return mode
        }
        guard let found else { throw notReached(request, candidates: candidates, device: probe.path) }
        return found
    }

    /// The formats a mode may be chosen from: those the reader can capture, only the compressed ones
    /// for a copy, only the one named by `--input-format`.
    private static func formats(for request: VideoRequest, from probe: CameraProbe) throws(CaptureError)
        -> [CameraFormat]
    {
        var formats = usableFormats(probe, reader: request.reader)
        if request.copy {
            formats = formats.filter(\.compressed)
            if formats.isEmpty {
                throw .notSupported(
                    device: probe.path,
                    reason:
                        "\(.videoCodec, "copy") needs a compressed format (MJPEG, H.264) and the camera offers none; "
                        + "formats on offer: \(offered(probe))")
            }
        }
        if let name = request.inputFormat {
            formats = try restrict(formats, to: name, probe: probe, reader: request.reader)
        }
        guard !formats.isEmpty else {
            throw .notSupported(
                device: probe.path,
                reason:
                    "\(cannotCapture("any of its formats", probe: probe, reader: request.reader)) (\(offered(probe)))")
        }
        return formats
    }

    /// The largest frame size the camera offers in a format it can be recorded in, in
    /// `inputFormat` when given (a fourcc or FFmpeg's name): what a still is taken at by default.
    /// Stepwise and continuous ranges count with their largest size.
    ///
    /// - Returns: nil when the camera lists no sizes.
    /// - Throws: as `select` for an `inputFormat` the camera lacks (69) or that names no format (64).
    public static func largestSize(inputFormat: String?, from probe: CameraProbe) throws(CaptureError)
        -> FrameDimensions?
    {
        var formats = usableFormats(probe)
        if let inputFormat { formats = try restrict(formats, to: inputFormat, probe: probe) }
        return formats.flatMap { $0.frameSizes.map(\.max) }.max { $0.area < $1.area }
    }

    /// One (format, size) pair with the rates offered there.
    struct Candidate {
        var format: CameraFormat
        var size: FrameDimensions
        var intervals: FrameIntervals
        /// VIDIOC_G_PARM's rate, which is what a size without intervals gets.
        var inputRate: Rational?

        /// The highest rate offered.
        var highest: Rational? { intervals.type == .none ? inputRate : intervals.highestRate }

        /// The rates offered, as a message names them: "30 fps", "30, 15 or 5 fps", "1 to 30 fps",
        /// "an unknown rate". Only a range reaches every rate below its highest, so only a range
        /// reads as one.
        var ratesText: String {
            func fps(_ rates: [Rational]) -> String {
                let names = rates.map(\.decimalDescription)
                guard names.count > 1 else { return "\(names.first ?? "?") fps" }
                return names.dropLast().joined(separator: ", ") + " or \(names.last!) fps"
            }
            switch intervals.type {
            case .discrete:
                let rates = intervals.discreteRates.reduce(into: [Rational]()) { if !$0.contains($1) { $0.append($1) } }
                guard rates.count > 4, let fastest = rates.first, let slowest = rates.last else { return fps(rates) }
                return "\(rates.count) rates from \(slowest.decimalDescription) to \(fastest.decimalDescription) fps"
            case .stepwise, .continuous:
                guard let fastest = intervals.min?.inverted, let slowest = intervals.max?.inverted else { break }
                return fastest == slowest
                    ? fps([fastest])
                    : "\(slowest.reduced.decimalDescription) to \(fastest.reduced.decimalDescription) fps"
            case .none:
                if let inputRate { return fps([inputRate]) }
            }
            return "an unknown rate"
        }

        /// The offered rate that matches `rate` (within 0.2 %, so 30 finds 30000/1001), or `rate`
        /// itself inside a range; nil when not offered.
        func reach(_ rate: Rational) -> Rational? {
            func close(_ a: Rational) -> Bool {
                Swift.abs(a.doubleValue - rate.doubleValue) <= rate.doubleValue * 0.002
            }
            switch intervals.type {
            case .discrete:
                return intervals.discreteRates.filter(close).min {
                    Swift.abs($0.doubleValue - rate.doubleValue) < Swift.abs($1.doubleValue - rate.doubleValue)
                }
            case .stepwise, .continuous:
                guard let fastest = intervals.min?.inverted, let slowest = intervals.max?.inverted else { return nil }
                return rate <= fastest && slowest <= rate
                    ? rate : (close(fastest) ? fastest : (close(slowest) ? slowest : nil))
            case .none:
                return inputRate.flatMap { close($0) ? $0 : nil }
            }
        }

        func mode(rate: Rational?) -> VideoMode {
            VideoMode(
                fourcc: format.fourcc, inputFormat: format.ffmpegName ?? format.fourcc, width: size.width,
                height: size.height, frameRate: rate?.reduced, rateFromInput: intervals.type == .none,
                compressed: format.compressed, multiplanar: format.bufferType == "video-capture-mplane")
        }
    }

    /// The formats a camera can be recorded in by `reader` (nil: the one `InputSource` chooses):
    /// a multiplanar-only camera's, those capture's own reader records (`NativeV4L2Formats`).
    /// Of a single-planar camera's (only those, when it has any: FFmpeg 5.1's v4l2 input has no
    /// multiplanar support), those the own reader records, unless FFmpeg's is asked for, and
    /// those FFmpeg's v4l2 input can open: it has a name for them, and for names shared by two
    /// fourccs, only the one it asks for first. The own reader asks for the very fourcc chosen.
    static func usableFormats(_ probe: CameraProbe, reader: V4L2Reader? = nil) -> [CameraFormat] {
        let single = probe.formats.filter { $0.bufferType == "video-capture" }
        guard !single.isEmpty else { return probe.formats.filter { $0.ffmpegName != nil } }
        return single.filter { format in
            if reader != .ffmpeg && NativeV4L2Formats.entry(fourcc: format.fourcc) != nil { return true }
            guard let name = FFmpegV4L2Formats.name(fourcc: format.fourcc) else { return false }
            let first = FFmpegV4L2Formats.fourccs(name: name).first { fourcc in single.contains { $0.fourcc == fourcc }
            }
            return first == format.fourcc
        }
    }

    /// Narrows `formats` to the one `name` forces.
    static func restrict(
        _ formats: [CameraFormat], to name: String, probe: CameraProbe, reader: V4L2Reader? = nil
    ) throws(CaptureError)
        -> [CameraFormat]
    {
        let wanted = name.trimmingTrailingSpaces
        func sameFourcc(_ f: CameraFormat) -> Bool {
            f.fourcc.trimmingTrailingSpaces.uppercased() == wanted.uppercased()
        }
        let byFourcc = formats.filter(sameFourcc)
        if !byFourcc.isEmpty { return byFourcc }
        let byName = formats.filter { $0.ffmpegName == wanted.lowercased() }
        if !byName.isEmpty { return byName }
        let offeredButUnusable = probe.formats.contains(where: sameFourcc)
        guard offeredButUnusable || isKnownInputFormat(wanted) else {
            throw .usage(
                "unknown input format '\(name)': give a fourcc (YUYV, MJPG) or an FFmpeg name (yuyv422, mjpeg, nv12, h264); "
                    + "\(probe.path) offers \(offered(probe))")
        }
        let why =
            offeredButUnusable
            ? cannotCapture(wanted, probe: probe, reader: reader) : "the camera does not offer \(name)"
        throw .notSupported(device: probe.path, reason: "\(why); formats on offer: \(offered(probe))")
    }

    /// Every (format, size) pair; a range gives the requested size when it lies on it, else the
    /// current size when it does, else its largest size.
    static func candidates(_ formats: [CameraFormat], probe: CameraProbe, size requested: FrameDimensions?)
        -> [Candidate]
    {
        formats.flatMap { format in
            format.frameSizes.compactMap { range -> Candidate? in
                let size: FrameDimensions
                if range.type == .discrete {
                    size = range.min
                } else if let requested, range.contains(requested) {
                    size = requested
                } else if let current = probe.current?.size, range.contains(current) {
                    size = current
                } else {
                    size = range.max
                }
                return Candidate(
                    format: format, size: size, intervals: range.intervals, inputRate: probe.current?.frameRate)
            }
        }
    }

    /// Raw before compressed, a sensor's Bayer mosaic last (it needs demosaicing, and most
    /// containers cannot hold it raw: it is recorded when asked for, or when nothing else reaches
    /// the mode, never because another program left the camera in it); the current format first;
    /// then the driver's order.
    static func preferenceOrder(_ formats: [CameraFormat], current: String?) -> [String: Int] {
        let ordered = formats.enumerated().sorted { a, b in
            func rank(_ f: CameraFormat) -> Int {
                (f.ffmpegName?.hasPrefix("bayer_") == true ? 4 : 0) + (f.compressed ? 2 : 0)
                    + (f.fourcc == current ? 0 : 1)
            }
            return rank(a.element) != rank(b.element) ? rank(a.element) < rank(b.element) : a.offset < b.offset
        }
        var order: [String: Int] = [:]
        for (position, entry) in ordered.enumerated() {
            order[entry.element.fourcc + entry.element.bufferType] = position
        }
        return order
    }

    /// The error for a request nothing reaches, with the nearest modes on offer.
    static func notReached(_ request: VideoRequest, candidates: [Candidate], device: String) -> CaptureError {
        var asked: [String] = []
        if let size = request.frameSize { asked.append("\(size)") }
        if let rate = request.frameRate { asked.append("\(rate.decimalDescription) fps") }

        // The highest rate per size, with the formats reaching it.
        var bySize: [FrameDimensions: (rate: Rational?, formats: [String], rates: String)] = [:]
        for c in candidates {
            let entry = bySize[c.size] ?? (nil, [], "")
            let rate = c.highest
            if entry.rate == nil && entry.formats.isEmpty || (rate ?? Rational(0, 1)) > (entry.rate ?? Rational(0, 1)) {
                bySize[c.size] = (rate, [c.format.fourcc], c.ratesText)
            } else if rate == entry.rate {
                bySize[c.size]!.formats.append(c.format.fourcc)
            }
        }
        func distance(_ size: FrameDimensions, _ rate: Rational?) -> Double {
            var d = 0.0
            if let want = request.frameSize { d += Swift.abs(log(Double(size.area) / Double(want.area))) }
            if let want = request.frameRate, let rate { d += Swift.abs(log(rate.doubleValue / want.doubleValue)) }
            return d
        }
        let nearest = bySize.sorted { a, b in
            let da = distance(a.key, a.value.rate)
            let db = distance(b.key, b.value.rate)
            return da != db ? da < db : a.key.area > b.key.area
        }.prefix(4).map { size, offer in
            "\(size) at \(offer.rates) (\(SizeSummary.list(offer.formats, limit: 3)))"
        }
        var what = asked.isEmpty ? "any frame size" : asked.joined(separator: " at ")
        if let name = request.inputFormat { what += " as \(name)" }
        return .notSupported(
            device: device,
            reason: "no pixel format offers \(what); nearest modes on offer: \(nearest.joined(separator: "; "))")
    }
}
