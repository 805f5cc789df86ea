import Foundation
import Testing

/// A finished MP4, MOV or M4A is an ordinary file with its index in front (issue 11): `moov`
/// before `mdat`, no fragments, and a real duration in `mvhd`, so players show a length and seek.
/// A small box reader (python3) reads the top-level boxes; ffprobe is the oracle of the duration.
@Suite struct RecordFastStartTests {
    /// Prints the top-level box types in file order, then the `mvhd` duration in seconds.
    static let boxReader = """
        import struct, sys
        data = open(sys.argv[1], 'rb').read()
        pos, types, duration = 0, [], None
        while pos + 8 <= len(data):
            size, kind = struct.unpack('>I4s', data[pos:pos + 8])
            header = 8
            if size == 1:
                size = struct.unpack('>Q', data[pos + 8:pos + 16])[0]
                header = 16
            elif size == 0:
                size = len(data) - pos
            kind = kind.decode('latin-1')
            types.append(kind)
            if kind == 'moov':
                inner, end = pos + header, pos + size
                while inner + 8 <= end:
                    isize, ikind = struct.unpack('>I4s', data[inner:inner + 8])
                    if ikind == b'mvhd':
                        version = data[inner + 8]
                        if version == 1:
                            scale, length = struct.unpack('>IQ', data[inner + 28:inner + 40])
                        else:
                            scale, length = struct.unpack('>II', data[inner + 20:inner + 28])
                        duration = length / scale
                    if isize < 8:
                        break
                    inner += isize
            if size < 8:
                break
            pos += size
        print(' '.join(types))
        print(duration)
        """

    struct Boxes {
        var types: [String]
        var duration: Double?
    }

    static func boxes(_ path: String) throws -> Boxes {
        let result = try ChildProcess.run("python3", ["-c", boxReader, path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        return Boxes(
            types: lines.first?.split(separator: " ").map(String.init) ?? [],
            duration: lines.dropFirst().first.flatMap(Double.init))
    }

    static func formatDuration(_ path: String) throws -> Double? {
        let result = try ChildProcess.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `record --video test --duration 1` (and the same with sound, and sound alone in .m4a):
    /// moov before mdat, no moof or mfra, mvhd within one frame of ffprobe's duration, nothing left
    /// beside the file, and no note in the summary.
    @Test(arguments: [
        ("mp4", ["--video", "test"]), ("mov", ["--video", "test", "--audio", "test"]), ("m4a", ["--audio", "test"]),
        ("mp4", ["--video", RecordSources.video, "--frames", "45"]),
    ])
    func finishedFileHasItsIndexInFront(ext: String, inputs: [String]) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("a.\(ext)")
        let duration = inputs.contains("--frames") ? [] : ["--duration", "1"]
        let result = try BuiltBinary.run(["record"] + inputs + duration + [file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("note:"), "\(result.stdout)")
        let boxes = try Self.boxes(file)
        let moov = try #require(boxes.types.firstIndex(of: "moov"), "\(boxes.types)")
        let mdat = try #require(boxes.types.firstIndex(of: "mdat"), "\(boxes.types)")
        #expect(moov < mdat, "\(boxes.types)")
        #expect(!boxes.types.contains("moof") && !boxes.types.contains("mfra"), "\(boxes.types)")
        let probed = try #require(try Self.formatDuration(file))
        let header = try #require(boxes.duration)
        #expect(abs(header - probed) <= 1.0 / 30 + 1e-6, "mvhd \(header) s, ffprobe \(probed) s")
        #expect(probed > (inputs.contains("--frames") ? 1.4 : 0.9), "\(probed)")
        #expect(try RecordOracle.decodesCleanly(file))
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        #expect(left == ["a.\(ext)"], "\(left)")
    }

    /// Killed while recording, the file stays fragmented (what survives kill -9) and decodes.
    @Test func killedRecordingStaysFragmentedAndDecodes() async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("killed.mp4")
        let exit = try await RealTimeSlots.run {
            let process = try ChildProcess.realTime(["record", "--video", "test", "--quiet", file], in: scratch)
            return try await onOwnThread {
                process.sleep(untilElapsed: 3)
                process.signalGroup(SIGKILL)
                return process.wait(timeout: 5)
            }
        }
        #expect(exit == .init(status: nil, signal: SIGKILL))
        let boxes = try Self.boxes(file)
        #expect(boxes.types.contains("moof"), "\(boxes.types)")
        let result = try ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 45, "\(result.stdout)")
    }

    /// Raw pictures have no duration from their encoder; the finished file's index must still give
    /// the last one its length, or its edit list ends where that frame starts and readers drop it.
    @Test(arguments: [10, 31])
    func rawVideoInMOVKeepsItsLastFrame(frames: Int) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("raw.mov")
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--codec", "raw", "--pixel-format", "yuyv422",
            "--frames", "\(frames)", "--quiet", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let video = try #require(try RecordOracle.probe(file).video)
        #expect(video.frames == frames, "\(video)")
        #expect(abs((video.duration ?? 0) - Double(frames) / 30) < 0.002, "\(video)")
    }

    /// A camera whose frames stop for most of the recording and come back only past its end (the
    /// loop behind a slow encoder drops the rest): the last picture is held to the end, so its
    /// packet's presentation lies seconds after the decode time the encoder's reordering gave it.
    /// The finished MP4 lasts as long as the recording, not that much longer, and plays each frame.
    @Test(arguments: [[], ["--preset", "ultrafast"]])
    func aLastFrameAfterAGapEndsTheFileOnTime(extra: [String]) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("gap.mp4")
        // Frames 0-4 and from 95 on of a 30 fps pattern: the recording's 3 s end at frame 90.
        let result = try BuiltBinary.run(
            [
                "record", "--video", "lavfi:testsrc2=size=320x180:rate=30,select='lt(n\\,5)+gte(n\\,95)'",
                "--audio", RecordSources.audio, "--duration", "3", "--quiet",
            ] + extra + [file])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(abs((probe.duration ?? 0) - 3) <= 0.05, "\(probe)")
        #expect(abs((probe.video?.duration ?? 0) - 3) <= 0.05, "\(probe)")
        #expect(probe.video?.frames == 6, "\(probe)")
        #expect(try RecordOracle.decodesCleanly(file))
    }
}
