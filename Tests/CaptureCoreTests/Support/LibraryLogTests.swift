import Foundation
import Synchronization
import Testing

@testable import CaptureCore

/// Runs `body` on a thread of its own, waits for it, and returns what it returned.
///
/// The library log keeps the last error line per thread, and tests run in parallel on a shared
/// pool of threads: on a thread of its own, a test's line can neither meet a line another test
/// left on a pool thread nor stay behind for the next test there. Expectations belong in the test
/// itself, on what `body` returns.
func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }.start()
    done.wait()
    return result.withLock { $0! }
}

extension LibraryLog {
    /// The shared log, installed once for the whole test process as the CLI installs it at
    /// start-up. `install` sets process-wide state (FFmpeg's log level and callback, libasound's
    /// error handler) that every test running meanwhile shares, so no test calls it again.
    static let installedForTests: LibraryLog = {
        LibraryLog.shared.install(verbose: false)
        return LibraryLog.shared
    }()
}

@Suite struct LibraryLogTests {
    @Test(arguments: [
        ("[lavfi @ 0x5637a1b2c3d0] No such filter: 'x'", "No such filter: 'x'"),
        ("[Parsed_testsrc2_0 @ 0x55d0] [graph 0 @ 0x55d1] Invalid size", "Invalid size"),
        ("[video4linux2,v4l2 @ 0x1] ioctl(VIDIOC_STREAMON): No such device", "ioctl(VIDIOC_STREAMON): No such device"),
        ("ALSA: snd_pcm_open: cannot open", "ALSA: snd_pcm_open: cannot open"),
        ("[not a context] stays", "[not a context] stays"),
    ])
    func errorLinesLoseFFmpegsContextPrefix(line: String, expected: String) {
        #expect(LibraryLog.withoutContext(line) == expected)
    }

    @Test func foldedLinesLoseTrailingNewlines() {
        let taken = onThreadOfItsOwn { () -> String? in
            LibraryLog.shared.record(level: 16, line: "ALSA: pulse_connect: Connection refused\n\n")
            return LibraryLog.shared.takeLastError()
        }
        #expect(taken == "ALSA: pulse_connect: Connection refused")
    }
}
