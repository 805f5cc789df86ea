internal import CFFmpeg
import Glibc

/// How FFmpeg's rawvideo decoder expects one picture of a pixel format and size: its planes one
/// after another, each line exactly as long as the width needs (alignment 1), as
/// `av_image_fill_linesizes` and `av_image_fill_plane_sizes` lay them out.
///
/// A camera's buffer may pad its lines (`bytesperline` past the width) or keep its planes in
/// separate memory buffers (NV12M); `pack` copies such a picture into this layout.
struct PackedPicture: Hashable, Sendable {
    /// Bytes per line of each plane, packed.
    let lineSizes: [Int]
    /// Lines of each plane.
    let lineCounts: [Int]

    /// The layout of `name` (an FFmpeg pixel format name) at `width` x `height`; nil for a name
    /// FFmpeg does not know.
    init?(name: String, width: Int, height: Int) {
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE else { return nil }
        var lines: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        var sizes: (Int, Int, Int, Int) = (0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &lines) { lineBytes -> Bool in
            let lineList = lineBytes.bindMemory(to: Int32.self)
            guard av_image_fill_linesizes(lineList.baseAddress, format, Int32(width)) >= 0 else { return false }
            var strides: [Int] = lineList.map { Int($0) }
            return withUnsafeMutableBytes(of: &sizes) { sizeBytes in
                let sizeList = sizeBytes.bindMemory(to: Int.self)
                return strides.withUnsafeMutableBufferPointer { strideList in
                    av_image_fill_plane_sizes(sizeList.baseAddress, format, Int32(height), strideList.baseAddress) >= 0
                }
            }
        }
        guard ok else { return nil }
        let lineList = [lines.0, lines.1, lines.2, lines.3].map(Int.init).filter { $0 > 0 }
        let sizeList = [sizes.0, sizes.1, sizes.2, sizes.3]
        lineSizes = lineList
        lineCounts = lineList.indices.map { sizeList[$0] / lineList[$0] }
    }

    /// Bytes of the packed picture.
    var size: Int { zip(lineSizes, lineCounts).reduce(0) { $0 + $1.0 * $1.1 } }

    /// Where each packed plane comes from in a camera's buffer.
    struct Source {
        /// The first byte of the plane.
        var start: UnsafeRawPointer
        /// Bytes from one line to the next.
        var stride: Int
        /// Bytes from the start of the memory plane's data to `start`.
        var offset: Int = 0
        /// Bytes from one sample to the next: 2 for one component of interleaved chroma.
        var step: Int = 1
    }

    /// The planes of a picture held in one memory buffer from `start`, one plane after another
    /// in `order` (FFmpeg's plane numbers as memory holds them; nil: FFmpeg's order), each line
    /// `bytesPerLine` times as long as the first plane's packed line relative to its own (so
    /// NV12's chroma lines are as long as its luma lines, YUV420's half as long).
    ///
    /// - Returns: one source per packed plane, in FFmpeg's order.
    func contiguousSources(start: UnsafeRawPointer, bytesPerLine: Int, order: [Int]?) -> [Source] {
        var sources = [Source?](repeating: nil, count: lineSizes.count)
        var offset = 0
        for plane in order ?? Array(lineSizes.indices) {
            let stride = bytesPerLine * lineSizes[plane] / lineSizes[0]
            sources[plane] = Source(start: start + offset, stride: stride, offset: offset)
            offset += stride * lineCounts[plane]
        }
        return sources.map { $0! }
    }

    /// Bytes `sources` must span for `pack` to read only what they hold: each plane's last line
    /// ends within them. Checked by the caller against what the driver says it filled.
    func bytesRead(_ source: Source, plane: Int) -> Int {
        source.stride * (lineCounts[plane] - 1) + source.step * (lineSizes[plane] - 1) + 1
    }

    /// Copies the planes at `sources` (one per packed plane, in FFmpeg's order) into `target`,
    /// which holds `size` bytes.
    func pack(_ sources: [Source], into target: UnsafeMutableRawPointer) {
        var out = target
        for plane in lineSizes.indices {
            let source = sources[plane]
            if source.step != 1 {
                for line in 0..<lineCounts[plane] {
                    let row = (source.start + line * source.stride).assumingMemoryBound(to: UInt8.self)
                    let samples = out.assumingMemoryBound(to: UInt8.self)
                    for x in 0..<lineSizes[plane] { samples[x] = row[x * source.step] }
                    out += lineSizes[plane]
                }
                continue
            }
            if source.stride == lineSizes[plane] {
                memcpy(out, source.start, lineSizes[plane] * lineCounts[plane])
                out += lineSizes[plane] * lineCounts[plane]
                continue
            }
            for line in 0..<lineCounts[plane] {
                memcpy(out, source.start + line * source.stride, lineSizes[plane])
                out += lineSizes[plane]
            }
        }
    }
}
