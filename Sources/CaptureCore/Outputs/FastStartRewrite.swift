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
/// It also keeps no duration for a track's last packet, which an edit list would then leave out
/// (the last 21 ms of AAC). The rewrite moves each track back to where its first packet was and
/// makes its last packet reach the end of the latest frame shown (`spans`), and the muxer then writes the edit lists
/// that show the video from 0 and skip the priming, as it does for a file written in one go.
enum FastStartRewrite {
    /// The muxers whose files are rewritten.
    static let muxers: Set<String> = ["mp4", "mov", "ipod"]

    /// Rewrites the finished file at `path`, written by muxer `formatName`.
    ///
    /// - Parameter spans: per stream index, where its packets lay when they were written
    ///   (`OutputContainer.spans`); a stream without one keeps its times.
    ///
    /// - Throws: `FFmpegError` from the demuxer, the muxer or `rename(2)`; the hidden file is
    ///   removed then and `path` keeps the fragmented file.
    static func rewrite(
        path: String, formatName: String, spans: [Int: OutputContainer.Span] = [:]
    ) throws(FFmpegError) {
        let directory = path.pathDirectory
        let hidden = ".\(path.pathLastComponent).finishing-\(getpid())"
        let target = directory.isEmpty ? hidden : directory.pathAppending(hidden)
        do {
            try copy(from: path, to: target, formatName: formatName, spans: spans)
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

    /// Sets the times of a track's last packet so the track is shown to the end of its span.
    ///
    /// The muxer's edit list shows a track from its first packet's delay on, for as long as
    /// its packets' decode times and the last one's duration span. With reordered frames
    /// the delay at the end (the latest presentation time less the last decode time) equals
    /// the first one's only while frames come at an even pace; where a camera's frames came
    /// sparse it does not, and the track showed its last frames cut off. So the last packet
    /// lasts until the track is shown up to the end of its latest frame.
    /// After a gap (a camera's lost frames, a recording held to its end) an encoder that
    /// reorders still gives the last packet the decode time of a frame before the gap, so
    /// its presentation lies seconds after its decode time. Lasting from there to the end
    /// would carry its presentation that far past the end (the muxer's edit list ends at
    /// the latest presentation plus duration: a 10 s recording read as 19.8 s). Its decode
    /// time is moved up to the track's own delay before its presentation, and no further than
    /// the packet before it: where that one's decode time is already there (frames dropped just
    /// before the end), the same decode time twice is a file players and ffmpeg reject ("non
    /// monotonically increasing dts"), so the last one stays a tick after it.
    ///
    /// - Parameters:
    ///   - delay: how far (ticks) the track's first presentation lies after its decode.
    ///   - after: the decode time of the packet written before it, if any.
    private static func lastUntilEnd(
        _ last: Packet, delay: Int64, after previous: Int64?, span: OutputContainer.Span?, stream index: Int,
        in output: OutputContainer
    ) {
        let times = lastTimes(
            pts: last.pts, dts: last.dts, duration: last.duration, delay: delay, after: previous,
            end: span.map { output.ticks(ofMicroseconds: $0.end, stream: index) })
        last.dts = times.dts
        last.duration = times.duration
    }

    /// `lastUntilEnd`'s arithmetic, in the stream's ticks: the last packet's decode time and
    /// duration, given its times, the track's delay, the previous packet's decode time and where
    /// the track ends (nil: unknown, the duration is kept).
    static func lastTimes(
        pts: Int64?, dts: Int64?, duration: Int64, delay: Int64, after previous: Int64?, end: Int64?
    ) -> (dts: Int64?, duration: Int64) {
        var dts = dts
        var duration = duration
        if let pts, let old = dts, pts - old > delay {
            dts = min(pts, max(pts - delay, (previous ?? .min) + 1))
        }
        // The muxer's edit list ends at the latest presentation plus duration, whatever the
        // decode time: reckoned from the decode time moved up after the packet before, the last
        // frame lasted nothing (a track a frame short of its end).
        if let end, let shown = pts ?? dts.map({ $0 + delay }) {
            let reaching = end - shown
            if reaching > 0 || duration <= 0 { duration = max(0, reaching) }
        }
        return (dts, duration)
    }

    /// The handler names FFmpeg's mov muxer writes for a track it was given no name for.
    static let defaultHandlers: Set<String> = ["VideoHandler", "SoundHandler"]

    private static func copy(
        from path: String, to target: String, formatName: String, spans: [Int: OutputContainer.Span]
    ) throws(FFmpegError) {
        let input = try InputContainer(url: "file:" + path, format: nil)
        let output = try OutputContainer(name: target, formatName: formatName)
        for index in 0..<input.streamCount {
            let added = try output.addStream(
                copying: input, stream: index, timeBase: Rational(input.stream(index).pointee.time_base))
            // A track's name (a recording of several devices names each) stays as it was.
            if let name = input.metadata("handler_name", stream: index), !Self.defaultHandlers.contains(name) {
                output.setTitle(name, stream: added)
            }
        }
        // `file:` keeps a colon in the name from being read as a protocol.
        try output.writeHeader(to: "file:" + target, options: ["movflags": "+faststart"])
        // Per stream, the ticks that move its first packet back to where it was written, and its
        // last packet read, written once the next one comes (or, the last of all, with its length).
        var shifts: [Int: Int64] = [:]
        // Per stream, how far its first packet's presentation lies after its decode time: the
        // muxer's edit list shows the track from there.
        var firstDelays: [Int: Int64] = [:]
        var held: [Int: Packet] = [:]
        // Per stream, the decode time of the last packet written before the one held.
        var writtenDts: [Int: Int64?] = [:]
        while true {
            let packet = try Packet()
            guard try input.read(into: packet) else { break }
            let index = packet.streamIndex
            if shifts[index] == nil, let first = packet.pts ?? packet.dts {
                shifts[index] = spans[index].map { output.ticks(ofMicroseconds: $0.start, stream: index) - first } ?? 0
                firstDelays[index] = max(0, first - (packet.dts ?? first))
            }
            if let shift = shifts[index], shift != 0 {
                packet.pts = packet.pts.map { $0 + shift }
                packet.dts = packet.dts.map { $0 + shift }
            }
            if let previous = held[index] {
                writtenDts[index] = previous.dts
                try output.write(previous, stream: index)
            }
            held[index] = packet
        }
        for (index, last) in held.sorted(by: { $0.key < $1.key }) {
            lastUntilEnd(
                last, delay: firstDelays[index] ?? 0, after: writtenDts[index] ?? nil, span: spans[index],
                stream: index,
                in: output)
            try output.write(last, stream: index)
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
