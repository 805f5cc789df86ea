import Foundation

/// What ffprobe, an independent tool, reads from a recorded file: the oracle of the record tests.
struct RecordOracle {
    struct Stream {
        var type: String
        var codec: String
        var profile: String?
        var width: Int?
        var height: Int?
        var pixelFormat: String?
        /// ffprobe's `r_frame_rate`, as it prints it: "25/1", "30000/1001".
        var frameRate: String?
        var sampleRate: Int?
        var channels: Int?
        /// Frames (video) or packets (audio) ffprobe decoded, from `-count_frames`.
        var frames: Int?
        var start: Double?
        var duration: Double?
        /// The stream's name in the container's metadata: its title, or in MP4 and MOV, which
        /// keep none, its handler's name.
        var title: String? = nil
    }

    var streams: [Stream]
    /// Format duration in seconds.
    var duration: Double?

    var video: Stream? { streams.first { $0.type == "video" } }
    var audio: Stream? { streams.first { $0.type == "audio" } }

    /// Runs `ffprobe -count_frames` on `path`.
    static func probe(_ path: String) throws -> RecordOracle {
        let output = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries",
                "stream=codec_type,codec_name,profile,width,height,pix_fmt,r_frame_rate,sample_rate,channels,nb_read_frames,start_time,duration:stream_tags=title,handler_name:format=duration",
                "-of", "json", path,
            ])
        guard output.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        else { throw OracleError.unreadable(path: path, stderr: output.stderr) }
        func int(_ value: Any?) -> Int? { (value as? Int) ?? (value as? String).flatMap { Int($0) } }
        func double(_ value: Any?) -> Double? { (value as? Double) ?? (value as? String).flatMap { Double($0) } }
        let streams = (object["streams"] as? [[String: Any]] ?? []).map { s in
            Stream(
                type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "",
                profile: s["profile"] as? String, width: int(s["width"]), height: int(s["height"]),
                pixelFormat: s["pix_fmt"] as? String, frameRate: s["r_frame_rate"] as? String,
                sampleRate: int(s["sample_rate"]), channels: int(s["channels"]),
                frames: int(s["nb_read_frames"]), start: double(s["start_time"]), duration: double(s["duration"]),
                title: ((s["tags"] as? [String: Any]).flatMap { $0["title"] ?? $0["handler_name"] }) as? String)
        }
        let format = object["format"] as? [String: Any]
        return RecordOracle(streams: streams, duration: double(format?["duration"]))
    }

    /// True when ffmpeg decodes the whole file without a message (`decodingMessages`).
    static func decodesCleanly(_ path: String) throws -> Bool { try decodingMessages(path).isEmpty }

    /// What `ffmpeg -v error -i path -enc_time_base -1 -f null -` says while decoding the whole
    /// file; empty when it decodes without a message.
    ///
    /// Without `-enc_time_base -1` ffmpeg gives its null output the time base of the frame rate
    /// it guesses from the first packets; a recording that dropped frames there (a loaded
    /// machine) has a lower one, two of its frames then fall in one tick, and ffmpeg reports
    /// "non monotonically increasing dts" about its own output, not the file. With the file's
    /// own time base, what remains is what the file holds.
    static func decodingMessages(_ path: String) throws -> String {
        let result = try ChildProcess.run(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-enc_time_base", "-1", "-f", "null", "-"])
        return result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)"
    }

    enum OracleError: Error { case unreadable(path: String, stderr: String) }
}

/// A fresh directory for one test's files, removed when the test ends.
final class RecordScratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("capture-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Unpaced lavfi sources: they run as fast as the encoder, which keeps the suite quick.
enum RecordSources {
    static let video = "lavfi:testsrc2=size=160x120:rate=30"
    static let audio = "lavfi:sine=frequency=440:sample_rate=48000"
}
