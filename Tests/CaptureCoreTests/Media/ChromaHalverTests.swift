import CFFmpeg
import Testing

@testable import CaptureCore

/// The 4:2:2 to 4:2:0 pass a webcam's JPEGs take on their way to x264: the luma is the source's
/// own plane, each chroma row the mean of the two it stands between, and the range stays as it was.
@Suite struct ChromaHalverTests {
    /// The first picture of FFmpeg's test pattern at `size`, as a JPEG decoder gives it.
    func decodedPicture(width: Int, height: Int) throws -> Frame {
        let input = try InputContainer(
            url: "testsrc2=size=\(width)x\(height):rate=10,format=yuvj422p", format: "lavfi")
        let decoder = try Decoder(input: input, stream: 0)
        let packet = try Packet()
        let frame = try Frame()
        #expect(try input.read(into: packet))
        try decoder.send(packet)
        #expect(try decoder.receive(into: frame))
        return frame
    }

    /// A 4:2:2 picture whose chroma changes from row to row only, in no order.
    func stripedPicture(width: Int, height: Int) throws -> Frame {
        let frame = try Frame(width: width, height: height, pixelFormat: AV_PIX_FMT_YUVJ422P)
        frame.pts = 7
        for plane in 0...2 {
            for y in 0..<height {
                for x in 0..<(plane == 0 ? width : (width + 1) / 2) {
                    set(frame, plane: plane, x: x, y: y, to: (y * 37 + plane * 101) % 256)
                }
            }
        }
        return frame
    }

    func sample(_ frame: Frame, plane: Int, x: Int, y: Int) -> Int {
        let picture = frame.pointer.pointee
        let rows = [picture.data.0, picture.data.1, picture.data.2][plane]!
        return Int(rows[y * Int([picture.linesize.0, picture.linesize.1, picture.linesize.2][plane]) + x])
    }

    func set(_ frame: Frame, plane: Int, x: Int, y: Int, to value: Int) {
        let picture = frame.pointer.pointee
        let rows = [picture.data.0, picture.data.1, picture.data.2][plane]!
        rows[y * Int([picture.linesize.0, picture.linesize.1, picture.linesize.2][plane]) + x] = UInt8(value)
    }

    /// The largest distance of a halved chroma sample from the mean of the two source rows it
    /// stands between, in levels.
    func worstDistanceFromTheMean(_ halved: Frame, _ source: Frame) -> Double {
        var worst = 0.0
        for plane in 1...2 {
            for y in 0..<source.height / 2 {
                for x in 0..<(source.width + 1) / 2 {
                    let above = sample(source, plane: plane, x: x, y: 2 * y)
                    let mean = Double(above + sample(source, plane: plane, x: x, y: 2 * y + 1)) / 2
                    worst = max(worst, abs(Double(sample(halved, plane: plane, x: x, y: y)) - mean))
                }
            }
        }
        return worst
    }

    @Test(arguments: [(64, 36), (1920, 1080)])
    func eachChromaRowIsTheMeanOfTheTwoItStandsBetweenAndTheLumaIsShared(size: (Int, Int)) throws {
        let (width, height) = size
        let source = try stripedPicture(width: width, height: height)
        let halved = try ChromaHalver(width: width, height: height).halve(source)
        #expect(halved.pixelFormat == AV_PIX_FMT_YUV420P)
        #expect((halved.width, halved.height) == (width, height))
        #expect(halved.isFullRange, "the JPEG's full range was not kept")
        #expect(halved.pointer.pointee.data.0 == source.pointer.pointee.data.0, "the luma was copied")
        #expect(halved.pts == 7)
        let worst = worstDistanceFromTheMean(halved, source)
        #expect(worst <= 0.5, "a chroma sample is \(worst) levels from the mean of the two rows it stands between")
    }

    /// Across a row, libswscale's fast bilinear pass softens a sharp edge by a few levels.
    @Test func theTestPatternsChromaStaysWithinAFewLevelsOfTheRowsMean() throws {
        let source = try decodedPicture(width: 1280, height: 720)
        let worst = worstDistanceFromTheMean(try ChromaHalver(width: 1280, height: 720).halve(source), source)
        #expect(worst <= 8, "a chroma sample is \(worst) levels from the mean of the two rows it stands between")
    }

    /// A JPEG's picture going to limited range (a pixel format asked for) needs every sample
    /// converted, the luma too.
    @Test func aFullRangePictureGoingToLimitedRangeIsConvertedWhole() throws {
        let source = try stripedPicture(width: 64, height: 36)
        let converter = PictureConverter(width: 64, height: 36, pixelFormat: .yuv420p, keepsFullRange: false)
        let converted = try converter.convert(source)
        #expect(!converted.isFullRange)
        #expect(converted.pointer.pointee.data.0 != source.pointer.pointee.data.0, "the luma was not converted")
        // Full-range luma 0 is limited-range 16.
        #expect(sample(converted, plane: 0, x: 0, y: 0) == 16 && sample(source, plane: 0, x: 0, y: 0) == 0)
    }

    @Test func oddSizesAndPicturesItDoesNotTakeAreConvertedWhole() throws {
        #expect(ChromaHalver.takes(AV_PIX_FMT_YUVJ422P) && ChromaHalver.takes(AV_PIX_FMT_YUV422P))
        #expect(!ChromaHalver.takes(AV_PIX_FMT_YUYV422) && !ChromaHalver.takes(AV_PIX_FMT_YUV422P10LE))
        let odd = try ChromaHalver(width: 65, height: 37).halve(try decodedPicture(width: 65, height: 37))
        #expect((odd.width, odd.height, odd.pixelFormat) == (65, 37, AV_PIX_FMT_YUV420P))
        let converter = PictureConverter(width: 32, height: 18, pixelFormat: .yuv420p, keepsFullRange: true)
        let scaled = try converter.convert(try decodedPicture(width: 64, height: 36))
        #expect((scaled.width, scaled.height, scaled.pixelFormat) == (32, 18, AV_PIX_FMT_YUV420P))
    }
}
