import Testing

@testable import CaptureCore

/// Frame sizes and rates as ffmpeg takes them, names included, read through libavutil's parsers.
@Suite struct VideoSizeAndRateTests {
    @Test(arguments: [
        ("1280x720", 1280, 720), ("1920X1080", 1920, 1080), ("hd720", 1280, 720), ("hd1080", 1920, 1080),
        ("vga", 640, 480), ("qvga", 320, 240), ("4k", 4096, 2160), ("uhd2160", 3840, 2160), ("ntsc", 720, 480),
        ("pal", 720, 576),
    ])
    func sizesAndTheirNames(text: String, width: Int, height: Int) {
        #expect(FrameDimensions(videoSize: text) == FrameDimensions(width: width, height: height))
    }

    /// What FFmpeg does not read as a size; "HD720": its names are lower case. 4294967297 is
    /// 2^32 + 1, which a C `int` would keep as 1.
    @Test(arguments: [
        "", "big", "hd721", "HD720", "640x", "x480", "0x480", "-640x480", "1280x720x", "hd720p", "4294967297x720",
        "hd720\0junk",
    ])
    func sizesRefused(text: String) {
        #expect(FrameDimensions(videoSize: text) == nil)
    }

    @Test(arguments: [
        ("ntsc", Rational(30000, 1001)), ("pal", Rational(25, 1)), ("film", Rational(24, 1)),
        ("ntsc-film", Rational(24000, 1001)), ("qntsc", Rational(30000, 1001)), ("spal", Rational(25, 1)),
        ("30", Rational(30, 1)), ("29.97", Rational(30000, 1001)), ("23.976", Rational(24000, 1001)),
        ("30000/1001", Rational(30000, 1001)), ("60000:1001", Rational(60000, 1001)), ("50:2", Rational(25, 1)),
    ])
    func ratesAndTheirNames(text: String, rate: Rational) throws {
        let parsed = try #require(Rational(videoRate: text))
        // Exact fractions, not equal values: ntsc is 30000/1001 itself.
        #expect(parsed.numerator == rate.numerator && parsed.denominator == rate.denominator)
    }

    @Test(arguments: ["", "0", "-30", "abc", "ntcs", "NTSC", "30/0", "1/", "0:1", "inf", "nan", "1e9", "pal\0x"])
    func ratesRefused(text: String) {
        #expect(Rational(videoRate: text) == nil)
    }
}
