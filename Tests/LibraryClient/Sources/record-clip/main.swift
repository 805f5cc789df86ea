// Records one second of the built-in test pattern and tone to the file named on the command line.
import CaptureCore
import Glibc

let output = CommandLine.arguments.dropFirst().first ?? "clip.mkv"
// FFmpeg's and ALSA's own log lines go to the library's log (printed with verbose: true).
LibraryLog.shared.install(verbose: false)
do throws(CaptureError) {
    let request = RecordingRequest(video: .test, audio: .test, output: output, duration: 1)
    let plan = try RecordingPlanner.plan(request)
    let stop = StopSignal()
    stop.installHandlers()  // Ctrl-C ends the recording cleanly, the file finalized
    let session = try RecordingSession(plan: plan, stop: stop)
    switch try session.run() {
    case .recorded(let result):
        let video = result.summary.video
        print("\(output): \(result.summary.duration) s, \(video?.framesWritten ?? 0) frames")
        if let failure = result.failure { print("ended early: \(failure)") }
    case .stoppedBeforeFirstFrame:
        print("stopped before the first frame; no file was written")
    }
} catch {
    print("error: \(error) (exit \(error.exitCode))")
    exit(error.exitCode)
}
