internal import CFFmpeg
import FoundationEssentials
import Glibc

/// Turns a finished fragmented MP4, MOV or M4A into an ordinary one: one `moov` with the whole
/// index and the real duration, in front of the media data, as players and browsers want for
/// showing a length and seeking.
///
/// While recording the file stays fragmented, because that is what survives kill -9; only a
/// recording whose trailer was written is rewritten. libavformat does the work: the file is
/// demuxed and its packets are muxed again, unchanged, by the same muxer with `movflags=+faststart`
/// into a hidden file beside it, which is then renamed over it. A crash or an error during the
/// rewrite leaves the fragmented file as it was.
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
    static func rewrite(path: String, formatName: String, editLists: Bool = true) throws(FFmpegError) {
        let directory = path.pathDirectory
        let hidden = ".\(path.pathLastComponent).finishing-\(getpid())"
        let target = directory.isEmpty ? hidden : directory.pathAppending(hidden)
        do {
            try copy(from: path, to: target, formatName: formatName, editLists: editLists)
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

    private static func copy(from path: String, to target: String, formatName: String, editLists: Bool) throws(FFmpegError) {
        let input = try InputContainer(url: "file:" + path, format: nil)
        let output = try OutputContainer(name: target, formatName: formatName)
        for index in 0..<input.streamCount {
            _ = try output.addStream(copying: input, stream: index, timeBase: Rational(input.stream(index).pointee.time_base))
        }
        // `file:` keeps a colon in the name from being read as a protocol.
        var options = ["movflags": "+faststart"]
        if !editLists { options["use_editlist"] = "0" }
        try output.writeHeader(to: "file:" + target, options: options)
        let packet = try Packet()
        while try input.read(into: packet) {
            try output.write(packet, stream: packet.streamIndex)
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
