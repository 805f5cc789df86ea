/// Everything `capture probe` learns about a camera: identity, inputs, pixel formats with their
/// frame sizes and intervals, the current mode, and the controls.
///
/// A value type filled by `CameraProber` from VIDIOC_* answers; its JSON form (snake_case keys)
/// is the documented schema of `capture probe`'s JSON for cameras. Mode selection works on it
/// alone, so tests can feed recorded answers.
public struct CameraProbe: Codable, Hashable, Sendable {
    /// The node path, e.g. `/dev/video0`.
    public var path: String
    public var driver: String
    public var card: String
    public var busInfo: String
    /// The node's capabilities (`device_caps`) as v4l2-ctl names them.
    public var capabilities: [String]
    /// True when the node captures through the multiplanar API only.
    public var multiplanar: Bool
    /// The input being captured (VIDIOC_G_INPUT); formats, sizes and rates are those of this input.
    public var input: VideoInput?
    /// Every input of the node (VIDIOC_ENUMINPUT).
    public var inputs: [VideoInput]
    /// Every pixel format (VIDIOC_ENUM_FMT), in the driver's order.
    public var formats: [CameraFormat]
    /// The format and rate the device is set to now (VIDIOC_G_FMT, VIDIOC_G_PARM).
    public var current: CurrentMode?
    /// The controls (VIDIOC_QUERY_EXT_CTRL), disabled ones left out.
    public var controls: [CameraControl]
    /// How many buffers the camera streams with; nil when it could not be asked (another program
    /// streams it) or keeps no MMAP buffers.
    public var bufferCount: BufferCountRange? = nil

    public init(
        path: String, driver: String, card: String, busInfo: String, capabilities: [String],
        multiplanar: Bool, input: VideoInput?, inputs: [VideoInput], formats: [CameraFormat],
        current: CurrentMode?, controls: [CameraControl]
    ) {
        self.path = path
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.capabilities = capabilities
        self.multiplanar = multiplanar
        self.input = input
        self.inputs = inputs
        self.formats = formats
        self.current = current
        self.controls = controls
    }
}

/// One video input of a node (VIDIOC_ENUMINPUT): a webcam sensor, a TV tuner, S-Video, HDMI.
public struct VideoInput: Codable, Hashable, Sendable {
    public var index: Int
    public var name: String
    /// `camera`, `tuner` or `touch`.
    public var type: String
    /// True for a digital video input whose signal has DV timings (HDMI, DVI, SDI: an HDMI
    /// grabber), which can change mode or lose its signal while streaming; nil for the others.
    public var dvTimings: Bool?

    public init(index: Int, name: String, type: String, dvTimings: Bool? = nil) {
        self.index = index
        self.name = name
        self.type = type
        self.dvTimings = dvTimings
    }
}

/// A width and a height in pixels.
public struct FrameDimensions: Codable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses "1920x1080".
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }

    /// Pixels per frame.
    public var area: Int { width * height }

    /// "1920x1080".
    public var description: String { "\(width)x\(height)" }
}

/// A pixel format the camera offers (VIDIOC_ENUM_FMT) with its frame sizes.
public struct CameraFormat: Codable, Hashable, Sendable {
    /// The four-character code as v4l2-ctl prints it: "YUYV", "Y10 " (trailing space kept),
    /// "Y16 -BE" for a big-endian variant.
    public var fourcc: String
    /// The raw `pixelformat` value.
    public var code: UInt32
    /// The driver's description, e.g. "YUYV 4:2:2".
    public var description: String
    /// FFmpeg's name for what this format is recorded as: a pixel format for raw video
    /// ("yuyv422", "nv12"), a codec for compressed video ("mjpeg", "h264"). The name FFmpeg's v4l2
    /// input takes as `input_format` where it has one, else the one capture's own V4L2 reader
    /// records it as (NV21 as "nv21", NV12M as "nv12"); for a multiplanar format always the
    /// latter. Nil when neither reader can capture it.
    public var ffmpegName: String?
    /// True for compressed formats (MJPEG, H.264), `V4L2_FMT_FLAG_COMPRESSED`.
    public var compressed: Bool
    /// True for formats converted by libv4l in software, `V4L2_FMT_FLAG_EMULATED`.
    public var emulated: Bool
    /// `video-capture` or `video-capture-mplane`: the buffer type it was enumerated for.
    public var bufferType: String
    /// The frame sizes (VIDIOC_ENUM_FRAMESIZES).
    public var frameSizes: [FrameSize]

    public init(
        fourcc: String, code: UInt32, description: String, ffmpegName: String?, compressed: Bool,
        emulated: Bool, bufferType: String, frameSizes: [FrameSize]
    ) {
        self.fourcc = fourcc
        self.code = code
        self.description = description
        self.ffmpegName = ffmpegName
        self.compressed = compressed
        self.emulated = emulated
        self.bufferType = bufferType
        self.frameSizes = frameSizes
    }
}

/// One answer of VIDIOC_ENUM_FRAMESIZES: a discrete size, or a range (stepwise or continuous),
/// never expanded; with the frame intervals offered at that size.
public struct FrameSize: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable { case discrete, stepwise, continuous }
    public var type: Kind
    /// For a discrete size, the size; for a range, the smallest size.
    public var min: FrameDimensions
    /// For a discrete size, the same as `min`; for a range, the largest size.
    public var max: FrameDimensions
    /// Step between sizes of a range in pixels (1x1 for continuous and discrete).
    public var step: FrameDimensions
    /// The frame intervals (VIDIOC_ENUM_FRAMEINTERVALS). For a range they were asked for at the
    /// largest size; drivers that tie the rate to the input (TV, HDMI) answer none.
    public var intervals: FrameIntervals

    public init(
        type: Kind, min: FrameDimensions, max: FrameDimensions, step: FrameDimensions, intervals: FrameIntervals
    ) {
        self.type = type
        self.min = min
        self.max = max
        self.step = step
        self.intervals = intervals
    }

    /// A discrete size.
    public static func discrete(_ width: Int, _ height: Int, _ intervals: FrameIntervals) -> FrameSize {
        let size = FrameDimensions(width: width, height: height)
        return FrameSize(
            type: .discrete, min: size, max: size, step: FrameDimensions(width: 1, height: 1), intervals: intervals)
    }

    /// True when `size` is this size, or lies in this range on its step.
    public func contains(_ size: FrameDimensions) -> Bool {
        switch type {
        case .discrete:
            return size == min
        case .stepwise, .continuous:
            func fits(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Bool {
                value >= low && value <= high && (step <= 1 || (value - low) % step == 0)
            }
            return fits(size.width, min.width, max.width, step.width)
                && fits(size.height, min.height, max.height, step.height)
        }
    }
}

/// The frame intervals offered at one frame size, as seconds per frame.
public struct FrameIntervals: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case discrete, stepwise, continuous
        /// The driver lists no intervals: the rate follows the input (a TV standard, an HDMI
        /// signal) and only VIDIOC_G_PARM tells it.
        case none
    }
    public var type: Kind
    /// The discrete intervals in the driver's order (fastest first, usually); empty for ranges.
    public var discrete: [Rational]
    /// For a range: the shortest interval (highest rate), the longest, and the step.
    public var min: Rational?
    public var max: Rational?
    public var step: Rational?

    public init(
        type: Kind, discrete: [Rational] = [], min: Rational? = nil, max: Rational? = nil, step: Rational? = nil
    ) {
        self.type = type
        self.discrete = discrete
        self.min = min
        self.max = max
        self.step = step
    }

    public static let none = FrameIntervals(type: .none)

    /// The frame rates (frames per second), highest first, for discrete intervals.
    public var discreteRates: [Rational] { discrete.map { $0.inverted.reduced }.sorted(by: >) }

    /// The highest frame rate offered, nil when none is listed.
    public var highestRate: Rational? {
        switch type {
        case .discrete: discreteRates.first
        case .stepwise, .continuous: min.map { $0.inverted.reduced }
        case .none: nil
        }
    }
}

/// The mode the device is set to now.
public struct CurrentMode: Codable, Hashable, Sendable {
    public var fourcc: String
    public var width: Int
    public var height: Int
    /// The frame rate from VIDIOC_G_PARM (`timeperframe` inverted); nil when the driver does not
    /// report one.
    public var frameRate: Rational?
    /// The memory planes of one buffer in this mode, as VIDIOC_G_FMT lays them out: one for a
    /// contiguous format, one per plane for NV12M and the like.
    public var planes: [PlaneLayout]?

    public init(fourcc: String, width: Int, height: Int, frameRate: Rational?, planes: [PlaneLayout]? = nil) {
        self.fourcc = fourcc
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.planes = planes
    }

    public var size: FrameDimensions { FrameDimensions(width: width, height: height) }
}

/// One control (VIDIOC_QUERY_EXT_CTRL), with its current value.
public struct CameraControl: Codable, Hashable, Sendable {
    public var id: UInt32
    /// The name as v4l2-ctl prints it with `-l`: lower case, words joined by `_` ("white_balance_automatic").
    public var name: String
    /// The driver's own label ("White Balance, Automatic").
    public var label: String
    /// The control class heading it is listed under, e.g. "User Controls".
    public var className: String?
    /// v4l2-ctl's type names: int, bool, menu, button, int64, str, bitmask, intmenu, u8, u16, u32, area, ...
    public var type: String
    public var minimum: Int64
    public var maximum: Int64
    public var step: UInt64
    public var defaultValue: Int64
    /// The current value for integer-like controls; nil for write-only, button and compound ones.
    public var value: Int64?
    /// The current value of a string control.
    public var stringValue: String?
    /// Flags as v4l2-ctl names them: read-only, inactive, slider, write-only, volatile, ...
    public var flags: [String]
    /// The dimensions of an array control, empty for a single value.
    public var dims: [Int]
    /// Menu entries of a menu or integer menu control.
    public var menu: [MenuEntry]

    public init(
        id: UInt32, name: String, label: String, className: String?, type: String, minimum: Int64, maximum: Int64,
        step: UInt64, defaultValue: Int64, value: Int64?, stringValue: String?, flags: [String], dims: [Int],
        menu: [MenuEntry]
    ) {
        self.id = id
        self.name = name
        self.label = label
        self.className = className
        self.type = type
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.stringValue = stringValue
        self.flags = flags
        self.dims = dims
        self.menu = menu
    }
}

/// One entry of a menu control (VIDIOC_QUERYMENU): a name, or a number for integer menus.
public struct MenuEntry: Codable, Hashable, Sendable {
    public var index: Int64
    public var name: String?
    public var value: Int64?

    public init(index: Int64, name: String?, value: Int64?) {
        self.index = index
        self.name = name
        self.value = value
    }
}

/// One memory plane of a camera's buffer (`v4l2_plane_pix_format`, or the single-planar
/// `v4l2_pix_format`'s own fields).
public struct PlaneLayout: Codable, Hashable, Sendable {
    /// Bytes from the start of one line to the next, padding included.
    public var bytesPerLine: Int
    /// Bytes of the whole plane.
    public var sizeImage: Int

    public init(bytesPerLine: Int, sizeImage: Int) {
        self.bytesPerLine = bytesPerLine
        self.sizeImage = sizeImage
    }
}

/// How many MMAP buffers a camera streams with: the fewest its driver takes (a VIDIOC_REQBUFS for
/// one buffer answers with it) and the most the kernel keeps for one queue.
public struct BufferCountRange: Codable, Hashable, Sendable {
    public var min: Int
    public var max: Int

    public init(min: Int, max: Int) {
        self.min = min
        self.max = max
    }
}
