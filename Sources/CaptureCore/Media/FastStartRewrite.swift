internal import CFFmpeg
import FoundationEssentials
import Glibc

/// Turns a finished fragmented MP4, MOV or M4A into an ordinary one: one `moov` with the whole
/// index and the real duration, in front of the media data, as players and browsers want for
/// showing a length and seeking.
///
/// While recording the file stays fragmented, because that is what survives kill -9; only a
/// recording whose trailer was written is rewritten. libavformat does the work: the file is
/// demuxed and its packets are muxed again, their data unchanged, by the same muxer with `movflags=+faststart`
/// into a hidden file beside it, which is then renamed over it. A crash or an error during the
/// rewrite leaves the fragmented file as it was.
///
/// A fragmented MP4 made by FFmpeg 5.1 has no edit list and moves each track to start near 0, so
/// a video track whose first frame decodes a B-frame interval or two before it shows shows it
/// late, and an AAC track plays its priming: the tracks end up out of step by the difference.
/// The rewrite moves each track back to where its first packet was (`startTimes`), and the muxer
/// then writes the edit lists that show the video from 0 and skip the priming, as it does for a
/// file written in one go.
enum FastStartRewrite {
    /// The muxers whose files are rewritten.
    static let muxers: Set<String> = ["mp4", "mov", "ipod"]

    /// Rewrites the finished file at `path`, written by muxer `formatName`.
    ///
    /// - Parameter editLists: false writes no edit lists (`use_editlist=0`): for a segment that
    ///   starts in the middle of the encoders' output, whose audio edit the muxer would end one
    ///   AAC frame before its last packet.
    ///
    /// - Throws: `FFmpegError` from the demuxer, the muxer or `rename(2)`; the hidden file is
    ///   removed then and `path` keeps the fragmented file.
    ///   - startTimes: per stream index, the presentation time of its first packet (in decode
    ///     order) when it was written
    ///     (microseconds, `OutputContainer.firstPacketTimes`); a stream without one keeps its times.
    static func rewrite(
        path: String, formatName: String, editLists: Bool = true, startTimes: [Int: Int64] = [:]
    ) throws(FFmpegError) {
        let directory = path.pathDirectory
        let hidden = ".\(path.pathLastComponent).finishing-\(getpid())"
        let target = directory.isEmpty ? hidden : directory.pathAppending(hidden)
        do {
            try copy(from: path, to: target, formatName: formatName, editLists: editLists, startTimes: startTimes)
        } catch {
            unlink(target)
            throw error
        }
        if rename(target, path) != 0 {
            let error = FFmpegError(-errno, call: "rename")
            unlink(target)
            throw error
        }
    }

    private static func copy(
        from path: String, to target: String, formatName: String, editLists: Bool, startTimes: [Int: Int64]
    ) throws(FFmpegError) {
        let input = try InputContainer(url: "file:" + path, format: nil)
        let output = try OutputContainer(name: target, formatName: formatName)
        for index in 0..<input.streamCount {
            _ = try output.addStream(
                copying: input, stream: index, timeBase: Rational(input.stream(index).pointee.time_base))
        }
        // `file:` keeps a colon in the name from being read as a protocol.
        var options = ["movflags": "+faststart"]
        if !editLists { options["use_editlist"] = "0" }
        try output.writeHeader(to: "file:" + target, options: options)
        let packet = try Packet()
        // Per stream, the ticks that move its first packet back to where it was written.
        var shifts: [Int: Int64] = [:]
        while try input.read(into: packet) {
            let index = packet.streamIndex
            if shifts[index] == nil, let first = packet.pts ?? packet.dts {
                shifts[index] = startTimes[index].map { output.ticks(ofMicroseconds: $0, stream: index) - first } ?? 0
            }
            if let shift = shifts[index], shift != 0 {
                packet.pts = packet.pts.map { $0 + shift }
                packet.dts = packet.dts.map { $0 + shift }
            }
            try output.write(packet, stream: index)
        }
        try output.finish()
        // The rename must not publish a file whose data is still only in the page cache.
        let fd = open(target, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
