import Testing

@testable import CaptureCore

/// The pure parts of capture's own V4L2 reader: losses from sequence numbers, the buffer count,
/// the packed layouts its pictures are copied into.
@Suite struct NativeV4L2Tests {
    /// The frames lost before each of `sequences`, counted by one `SequenceGaps`.
    private func losses(_ sequences: [UInt32], into gaps: inout SequenceGaps) -> [Int] {
        sequences.map { gaps.add($0) }
    }

    @Test func aGapInTheSequenceIsThatManyFramesLost() {
        var gaps = SequenceGaps()
        #expect(!gaps.numbered, "no numbers seen yet")
        #expect(losses([10, 11, 12, 15, 16, 20], into: &gaps) == [0, 0, 0, 2, 0, 3])
        #expect(gaps.numbered)
    }

    @Test func aWrappingCounterIsNoLoss() {
        var gaps = SequenceGaps()
        #expect(losses([UInt32.max - 2, UInt32.max - 1, UInt32.max, 0, 1, 2], into: &gaps) == [0, 0, 0, 0, 0, 0])
        #expect(losses([1, 2], into: &gaps) == [0, 0], "a jump back counts nothing")
        var across = SequenceGaps()
        #expect(losses([UInt32.max - 1, 1], into: &across) == [0, 2], "UInt32.max and 0 were skipped")
    }

    @Test func aDriverThatDoesNotNumberItsBuffersReportsNoLosses() {
        var gaps = SequenceGaps()
        #expect(losses(Array(repeating: 0, count: 10), into: &gaps).allSatisfy { $0 == 0 })
        #expect(!gaps.numbered)
    }

    @Test(
        arguments: [
            (nil, Rational(30, 1), 15), (nil, Rational(25, 1), 13), (nil, Rational(5, 1), 4),
            (nil, Rational(120, 1), 32),
            (nil, nil, 4), (1, Rational(30, 1), 2), (8, Rational(30, 1), 8), (100, Rational(30, 1), 32),
        ] as [(Int?, Rational?, Int)])
    func buffersHoldHalfASecondWithinTheKernelsLimit(requested: Int?, rate: Rational?, expected: Int) {
        #expect(NativeV4L2Formats.bufferCount(requested: requested, rate: rate) == expected)
    }

    @Test func fourccCodesAreLittleEndian() {
        #expect(NativeV4L2Formats.code(fourcc: "NM12") == 0x3231_4D4E)
        #expect(CameraProber.fourcc(NativeV4L2Formats.code(fourcc: "Y16 ")) == "Y16 ")
        // Big-endian variants: bit 31 (v4l2_fourcc_be), named as the prober names them.
        #expect(NativeV4L2Formats.code(fourcc: "Y16 -BE") == 0x2036_3159 | 1 << 31)
        for fourcc in ["Y16 -BE", "XR15-BE", "AR15-BE"] {
            #expect(CameraProber.fourcc(NativeV4L2Formats.code(fourcc: fourcc)) == fourcc)
        }
        #expect(NativeV4L2Formats.name(fourcc: "Y16 -BE") == "gray16be")
        #expect(NativeV4L2Formats.name(fourcc: "Y16 ") == "gray16le")
    }

    @Test func everyNameIsAFormatFFmpegKnows() {
        for entry in NativeV4L2Formats.table where !entry.compressed {
            let picture = PackedPicture(name: entry.name, width: 320, height: 180)
            #expect(picture != nil, "\(entry.fourcc): \(entry.name)")
            if let order = entry.planeOrder, let picture {
                #expect(order.sorted() == Array(picture.lineSizes.indices), "\(entry.fourcc): its planes")
            }
            if entry.memoryPlanes > 1, entry.interleavedChroma == nil, let picture {
                #expect(entry.memoryPlanes == picture.lineSizes.count, "\(entry.fourcc): one plane per buffer")
            }
        }
    }

    @Test func packedLayoutsAreFFmpegsRawvideo() throws {
        let nv12 = try #require(PackedPicture(name: "nv12", width: 320, height: 180))
        #expect(nv12.lineSizes == [320, 320] && nv12.lineCounts == [180, 90] && nv12.size == 320 * 180 * 3 / 2)
        let yuv420 = try #require(PackedPicture(name: "yuv420p", width: 321, height: 181))
        #expect(yuv420.lineSizes == [321, 161, 161] && yuv420.lineCounts == [181, 91, 91])
        let yuyv = try #require(PackedPicture(name: "yuyv422", width: 320, height: 180))
        #expect(yuyv.lineSizes == [640] && yuyv.size == 640 * 180)
    }

    @Test func interleavedChromaIsSplitIntoPlanes() throws {
        // A 4x1 NV61 line: Y Y Y Y, then V U V U.
        let picture = try #require(PackedPicture(name: "yuv422p", width: 4, height: 1))
        let memory: [UInt8] = [1, 2, 3, 4, 0xA0, 0xB0, 0xA1, 0xB1]
        var packed = [UInt8](repeating: 0, count: picture.size)
        memory.withUnsafeBytes { raw in
            let start = raw.baseAddress!
            let sources = [
                PackedPicture.Source(start: start, stride: 4),
                PackedPicture.Source(start: start + 5, stride: 4, offset: 5, step: 2),
                PackedPicture.Source(start: start + 4, stride: 4, offset: 4, step: 2),
            ]
            #expect(picture.bytesRead(sources[1], plane: 1) == 3 && picture.bytesRead(sources[2], plane: 2) == 3)
            packed.withUnsafeMutableBytes { picture.pack(sources, into: $0.baseAddress!) }
        }
        #expect(packed == [1, 2, 3, 4, 0xB0, 0xB1, 0xA0, 0xA1])
    }

    @Test func paddedLinesAndSwappedPlanesArePackedInFFmpegsOrder() throws {
        // A 4x2 YVU 4:2:0 picture in one buffer, lines padded to 8 bytes: Y, then V, then U.
        let picture = try #require(PackedPicture(name: "yuv420p", width: 4, height: 2))
        var memory = [UInt8](repeating: 0xEE, count: 8 * 2 + 4 + 4)
        for line in 0..<2 { for x in 0..<4 { memory[line * 8 + x] = UInt8(line * 4 + x) } }
        memory[16] = 0xA0  // V
        memory[20] = 0xB0  // U
        var packed = [UInt8](repeating: 0, count: picture.size)
        memory.withUnsafeBytes { raw in
            let sources = picture.contiguousSources(start: raw.baseAddress!, bytesPerLine: 8, order: [0, 2, 1])
            #expect(sources.map(\.stride) == [8, 4, 4])
            packed.withUnsafeMutableBytes { picture.pack(sources, into: $0.baseAddress!) }
        }
        #expect(packed[0..<8] == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(Array(packed[8...]) == [0xB0, 0xEE, 0xA0, 0xEE], "U first, then V, two bytes a line each")
    }
}
