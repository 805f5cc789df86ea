import Foundation
import Synchronization
import Testing

@testable import CaptureCore

/// CaptureCore links FoundationEssentials only, with stand-ins on the C library for the few calls
/// of full Foundation it needs. The tests have full Foundation: the oracle the stand-ins must match.
@Suite struct FoundationStandInTests {
    @Test(arguments: ["%.1f", "%.2fdB", "%+.3f", "%04.1f", "%.1f MiB"], [0.0, -0.5, 1.25, 59.96, 1234.5678, -3.0])
    func numbersFormatAsStringFormatDoes(format: String, value: Double) {
        #expect(String(cFormat: format, value) == String(format: format, value))
    }

    @Test(arguments: [0, 7, 0xBEEF, 0x8000_0000, 0xFFFF_FFFF] as [UInt32])
    func hexFormatsAsStringFormatDoes(value: UInt32) {
        #expect(String(cFormat: "0x%08x", value) == String(format: "0x%08x", value))
        #expect(String(cFormat: "type-0x%04x", value) == String(format: "type-0x%04x", value))
    }

    @Test func clockFormatsAsStringFormatDoes() {
        let seconds = 3725.25
        let ours = String(cFormat: "%02d:%02d:%04.1f", Int(seconds) / 3600, Int(seconds) / 60 % 60, 5.25)
        #expect(ours == String(format: "%02d:%02d:%04.1f", Int(seconds) / 3600, Int(seconds) / 60 % 60, 5.25))
        #expect(ours == "01:02:05.2")
    }

    @Test(arguments: [
        "out.mp4", "dir/out.mp4", "/abs/dir/out.mp4", "/out.mp4", "/", "dir/sub/", "a//b.mp4", "./x.nut", "",
        "../up/x.mkv",
    ])
    func pathsSplitAsNSStringDoes(path: String) {
        let ns = path as NSString
        #expect(path.pathDirectory == ns.deletingLastPathComponent)
        #expect(path.pathLastComponent == ns.lastPathComponent)
    }

    @Test(arguments: [("dir", ".x.tmp"), ("/", ".x.tmp"), ("/abs/dir", ".out.mp4.capture-1"), ("dir/", ".y")])
    func pathsJoinAsNSStringDoes(directory: String, component: String) {
        #expect(directory.pathAppending(component) == (directory as NSString).appendingPathComponent(component))
    }

    @Test(arguments: ["  brightness ", "\tmenu\t", "none", "   ", "", " two words ", "line\n"])
    func trimmingMatchesCharacterSets(text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: [("Type", 10), ("(menu)", 10), ("(integer64)", 10), ("", 3), ("label", 17)])
    func paddingMatchesFoundation(text: String, length: Int) {
        #expect(text.padded(toLength: length) == text.padding(toLength: length, withPad: " ", startingAt: 0))
    }

    @Test func caseIsIgnoredInNames() {
        #expect("Capture".equalsIgnoringCase("capture"))
        #expect("Auto Gain Control".equalsIgnoringCase("auto gain control"))
        #expect(!"Mic".equalsIgnoringCase("Mic Boost"))
    }

    @Test func eachThreadKeepsItsOwnLastError() {
        let log = LibraryLog.shared
        _ = log.takeLastError()
        log.record(level: 16, line: "here")
        let done = DispatchSemaphore(value: 0)
        let elsewhere = Mutex<String?>("unset")
        DetachedThread.start(name: "capture test thread") {
            log.record(level: 16, line: "there")
            elsewhere.withLock { $0 = log.takeLastError() }
            done.signal()
        }
        done.wait()
        #expect(elsewhere.withLock { $0 } == "there")
        #expect(log.takeLastError() == "here")
        #expect(log.takeLastError() == nil)
    }
}
