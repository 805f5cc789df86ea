internal import CFFmpeg

extension FrameDimensions {
    /// Reads a frame size as ffmpeg's `-video_size` takes it: `WIDTHxHEIGHT` ("1280x720") or
    /// one of FFmpeg's names for a size ("vga", "hd720", "hd1080", "4k", "qvga", "pal", ...).
    ///
    /// Wraps `av_parse_video_size` (libavutil/parseutils.h), so the names are the ones the linked
    /// FFmpeg knows, spelled as it spells them (lower case, "ntsc-film").
    ///
    /// - Parameter text: the size as typed.
    /// - Returns: nil when FFmpeg does not read `text` as a size, or when a number in it does not
    ///   fit a C `int`: `av_parse_video_size` reads with `strtol` into an `int`, so
    ///   "4294967297x720" would come back from it as 1x720.
    public init?(videoSize text: String) {
        guard !text.contains("\0"), Self.numbersFitCInt(text) else { return nil }
        var width: Int32 = 0
        var height: Int32 = 0
        guard av_parse_video_size(&width, &height, text) >= 0 else { return nil }
        self.init(width: Int(width), height: Int(height))
    }

    /// True when every run of digits in `text` is a number no larger than `Int32.max`.
    private static func numbersFitCInt(_ text: String) -> Bool {
        text.split(whereSeparator: { !("0"..."9").contains($0) }).allSatisfy { digits in
            Int(digits).map { $0 <= Int(Int32.max) } ?? false
        }
    }
}

extension Rational {
    /// Reads a frame rate as ffmpeg's `-framerate` takes it: a number ("30", "29.97"), a
    /// fraction ("30000/1001", "30:1") or one of FFmpeg's names for a rate ("ntsc", "pal",
    /// "film", "ntsc-film", ...), exactly: ntsc is 30000/1001, not 29.97.
    ///
    /// A number or `N/D` is read by `init(parsing:)`, which takes 29.97, 59.94 and 23.976 for
    /// the NTSC rates (30000/1001, ...), the rates cameras run at; FFmpeg's own reading of
    /// "29.97" is 2997/100. Anything else goes to `av_parse_video_rate`
    /// (libavutil/parseutils.h): its table of names, then its ratio and expression reader.
    ///
    /// - Parameter text: the rate as typed.
    /// - Returns: the rate in lowest terms; nil unless it is positive and below a million frames
    ///   per second.
    public init?(videoRate text: String) {
        if let rate = Rational(parsing: text) {
            self = rate
            return
        }
        guard !text.contains("\0") else { return nil }
        var rate = AVRational(num: 0, den: 0)
        guard av_parse_video_rate(&rate, text) >= 0, rate.num > 0, rate.den > 0 else { return nil }
        let value = Rational(Int(rate.num), Int(rate.den)).reduced
        guard value.doubleValue < 1_000_000 else { return nil }
        self = value
    }
}
