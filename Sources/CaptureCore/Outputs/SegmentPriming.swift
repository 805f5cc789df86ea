/// The priming of a segment series' audio streams whose decoder needs the samples before its
/// first (AAC, Opus): a later segment starts with copies of the packets before its first, on
/// times before its 0, which its edit list skips, so its decoder starts primed rather than
/// fading in. Keeps references to the last packets of each such stream, as many as that needs.
///
/// Used by the recording loop's thread only.
struct SegmentPriming {
    /// Per stream primed, how many samples per channel a later segment starts with.
    var prerolls: [Int: Int] = [:]
    /// Per stream primed, the last packets written, which hold them.
    private var recent: [Int: [Packet]] = [:]

    /// True when `stream`'s later segments start primed.
    func primes(_ stream: Int) -> Bool { prerolls[stream] != nil }

    /// Keeps a reference to `packet` (written next, which takes its payload) among the last ones of
    /// `stream`, as many as a later segment's priming needs.
    ///
    /// - Throws: `CaptureError.failed` when FFmpeg cannot reference the packet (out of memory).
    mutating func remember(_ packet: Packet, stream: Int) throws(CaptureError) {
        var kept = recent[stream] ?? []
        kept.append(try media("priming a segment") { () throws(FFmpegError) in try Packet(referencing: packet) })
        let needed = Int64(prerolls[stream] ?? 0)
        while kept.count > 1 && kept.dropFirst().reduce(0, { $0 + $1.duration }) >= needed { kept.removeFirst() }
        recent[stream] = kept
    }

    /// The packets that go ahead of `first`, a later segment's first packet of `stream`: those
    /// before it that carry the stream's preroll, on the segment's own times, before its 0
    /// (`first`'s time), to be written as they are.
    /// Where fewer came before (a microphone that started late), the earliest one known stands
    /// in for the rest: a decoder only warms up on them, and players skip them.
    ///
    /// - Throws: `CaptureError.failed` when FFmpeg cannot reference a packet (out of memory).
    func packets(before first: Packet, stream: Int) throws(CaptureError) -> [Packet] {
        var carried: [Packet] = []
        var covered: Int64 = 0
        let known = recent[stream] ?? []
        var index = known.count - 1
        while covered < Int64(prerolls[stream] ?? 0) {
            let source = index >= 0 ? known[index] : carried.first ?? first
            guard source.duration > 0 else { break }
            let copy = try media("priming a segment") { () throws(FFmpegError) in try Packet(referencing: source) }
            covered += copy.duration
            copy.pts = -covered
            copy.dts = -covered
            carried.insert(copy, at: 0)
            index -= 1
        }
        return carried
    }
}
