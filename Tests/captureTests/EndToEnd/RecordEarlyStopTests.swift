import Foundation
import Testing

/// A stop request early in a recording's start-up: while the devices open, before the first
/// frame, just after it. Each one ends the process promptly and cleanly, whatever it interrupts.
@Suite struct RecordEarlyStopTests {
    /// True once `pid` has a handler for `signal` (the `SigCgt` mask of /proc/PID/status).
    static func catches(_ pid: pid_t, _ signal: Int32) -> Bool {
        // The pid is the wrapping shell's until it execs capture; a handler the shell holds says
        // nothing about capture's, and a signal sent then is lost to the exec.
        guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
            name.trimmingCharacters(in: .whitespacesAndNewlines) == "capture"
        else { return false }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// Started as a script's background job is, with SIGINT ignored, and sent SIGINT at several
    /// delays after its handler is in place: each run ends within 1.5 s although it asked for 4 s,
    /// with exit 0 and either no file and one line saying so, or a file stopped by SIGINT.
    /// (A Dispatch signal source behind `SIG_IGN` was registered late and lost such signals.)
    @Test(arguments: [0.0, 0.01, 0.03, 0.06, 0.1, 0.15])
    func sigintEarlyEndsPromptly(delay: Double) async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("early.mp4")
        let arguments = ["record", "--video", "test", "--audio", "test", "--duration", "4", "--json", file]
        let process = try ChildProcess.recording(
            ["-c", "trap '' INT; exec \"$0\" \"$@\"", BuiltBinary.path] + arguments, program: "/bin/sh", in: scratch
        )
        let (handled, exit, took) = try await onOwnThread {
            let deadline = Date().addingTimeInterval(10)
            while !Self.catches(process.pid, SIGINT) && Date() < deadline && process.wait(timeout: 0) == nil {
                Thread.sleep(forTimeInterval: 0.001)
            }
            let handled = Self.catches(process.pid, SIGINT)
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let signalled = Date()
            process.signal(SIGINT)
            return (handled, process.wait(timeout: 8), Date().timeIntervalSince(signalled))
        }
        #expect(handled, "capture never installed a SIGINT handler")
        #expect(exit == .init(status: 0, signal: nil), "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(took < 1.5, "took \(took) s after the SIGINT; \(process.stdout)")
        if FileManager.default.fileExists(atPath: file) {
            #expect(process.stdout.contains("\"stop_reason\" : \"SIGINT\""), "\(process.stdout)")
            let valid = try ChildProcess.run("ffprobe", ["-v", "error", "-show_format", file])
            #expect(valid.status == 0, "\(valid.stderr)")
        } else {
            #expect(process.stderr.contains("stopped by SIGINT before the first frame"), "\(process.stderr)")
            #expect(process.stdout.isEmpty)
        }
    }
}
