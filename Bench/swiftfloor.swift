// The floor under any Swift program that does capture's work: FFmpeg's libraries loaded (as
// libload.c does), the Swift runtime and standard library linked statically, as capture is, and
// FoundationEssentials encoding one small JSON object, as the project's standards require.
//
// The benchmark measures it next to libload and `capture --version`: its peak RSS above
// libload's is what the language costs before capture's own code runs.
import FoundationEssentials

struct Versions: Encodable {
    let libraries: [String: UInt32]
}

let versions = Versions(libraries: [
    "avdevice": avdevice_version(), "avformat": avformat_version(), "avcodec": avcodec_version(),
    "avfilter": avfilter_version(), "swscale": swscale_version(), "swresample": swresample_version(),
    "avutil": avutil_version(),
])
let encoder = JSONEncoder()
encoder.outputFormatting = .sortedKeys
print(String(decoding: try encoder.encode(versions), as: UTF8.self))
