import Foundation
import Testing

@testable import CaptureCore

@Suite struct OutputTemplateTests {
    /// 2026-03-04 05:06:07 UTC.
    static let moment = Date(timeIntervalSince1970: 1_772_600_767)

    @Test func utcFieldsAndNumber() throws {
        let template = try OutputTemplate("out/cam-%Y%m%d-%H%M%S-%n.mp4", utc: true)
        #expect(template.path(number: 7, date: Self.moment) == "out/cam-20260304-050607-0007.mp4")
        #expect(template.path(number: 12345, date: Self.moment) == "out/cam-20260304-050607-12345.mp4")
        #expect(template.hadFields)
    }

    @Test func localTimeFollowsTZ() throws {
        // strftime reads the zone from TZ; a fixed offset makes the expected text independent of the host.
        let saved = ProcessInfo.processInfo.environment["TZ"]
        setenv("TZ", "XYZ-3", 1)
        tzset()
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        let template = try OutputTemplate("%H%M-%z.jpg")
        #expect(template.path(number: 1, date: Self.moment) == "0806-+0300.jpg")
        #expect(try OutputTemplate("%H%M-%z.jpg", utc: true).path(number: 1, date: Self.moment) == "0506-+0000.jpg")
    }

    @Test(arguments: [
        ("clip.mp4", "clip-0001.mp4", "clip-0002.mp4"),
        ("dir/a.b.mkv", "dir/a.b-0001.mkv", "dir/a.b-0002.mkv"),
        ("noext", "noext-0001", "noext-0002"),
        ("100%%.png", "100%-0001.png", "100%-0002.png"),
    ])
    func withoutFieldsANumberIsAdded(pattern: String, first: String, second: String) throws {
        let template = try OutputTemplate(pattern)
        #expect(!template.hadFields)
        #expect(template.path(number: 1, date: Self.moment) == first)
        #expect(template.path(number: 2, date: Self.moment) == second)
    }

    @Test(arguments: ["a%", "a%q.mp4", "%Y/x.mp4", "dir/", "x%D.mp4", "x%c.mp4", "x%t.mp4"])
    func rejectsBadTemplates(pattern: String) {
        #expect(throws: CaptureError.self) { try OutputTemplate(pattern) }
        do { _ = try OutputTemplate(pattern) } catch { #expect(error.exitCode == 64) }
    }

    @Test func matchesWhatItMakesOnly() throws {
        let template = try OutputTemplate("cam-%Y%m%d-%H%M%S.mp4", utc: true)
        #expect(template.matches(fileName: "cam-20260304-050607.mp4"))
        #expect(!template.matches(fileName: "cam-20260304-050607.mkv"))
        #expect(!template.matches(fileName: "cam-2026034-050607.mp4"))
        #expect(!template.matches(fileName: "xcam-20260304-050607.mp4"))
        #expect(!template.matches(fileName: "cam-20260304-050607.mp4.bak"))
        let numbered = try OutputTemplate("clip.mp4")
        #expect(numbered.matches(fileName: "clip-0001.mp4"))
        #expect(numbered.matches(fileName: "clip-12345.mp4"))
        #expect(!numbered.matches(fileName: "clip.mp4"))
        #expect(!numbered.matches(fileName: "clip-001.mp4"))
        #expect(!numbered.matches(fileName: "clipX0001.mp4"))
        let named = try OutputTemplate("%a-%n.jpg")
        #expect(named.matches(fileName: named.path(number: 3, date: Self.moment)))
    }
}

@Suite struct DurationAndSizeTests {
    @Test(arguments: [
        ("90", 90.0), ("0.5", 0.5), ("10m", 600), ("1h", 3600), ("1h30m", 5400), ("1.5h", 5400), ("45s", 45),
        ("2m30s", 150), ("1H", 3600), ("1h0m5s", 3605),
    ])
    func durations(text: String, seconds: Double) {
        #expect(DurationValue.seconds(text) == seconds)
    }

    /// Lengths in messages are quoted with the digits they need, never rounded to a tenth.
    @Test(arguments: [(5.0, "5"), (0.01, "0.01"), (0.5, "0.5"), (1.25, "1.25"), (3600, "3600")])
    func durationText(seconds: Double, text: String) {
        #expect(DurationValue.text(seconds) == text)
    }

    @Test(arguments: ["", "0", "-5", "0m", "10x", "30m1h", "1h1h", "h", "1h30", "inf", "nan", "1e3", "m5"])
    func badDurations(text: String) {
        #expect(DurationValue.seconds(text) == nil)
    }

    @Test(arguments: [
        ("1048576", Int64(1_048_576)), ("500M", 524_288_000), ("2G", 2_147_483_648), ("750k", 768_000),
        ("750K", 768_000), ("1.5k", 1536), ("2GiB", 2_147_483_648), ("500MB", 500_000_000), ("3kB", 3000),
        ("10B", 10), ("1T", 1_099_511_627_776),
    ])
    func sizes(text: String, bytes: Int64) {
        #expect(ByteSize.bytes(text) == bytes)
    }

    @Test(arguments: ["", "0", "-1M", "5X", "M", "1.2.3k", "0.0001", "99999999T", "1 M", "1Bk"])
    func badSizes(text: String) {
        #expect(ByteSize.bytes(text) == nil)
    }
}

@Suite struct RetentionPolicyTests {
    static func file(_ name: String, _ bytes: Int64, _ minute: Double) -> SeriesFile {
        SeriesFile(path: name, bytes: bytes, modified: Date(timeIntervalSince1970: minute * 60))
    }

    static let files = [file("c", 100, 3), file("a", 100, 1), file("d", 100, 4), file("b", 100, 2)]

    @Test func keepDeletesTheOldestBeyondN() {
        let policy = RetentionPolicy(keep: 2)
        #expect(policy.deletions(among: Self.files, current: nil).map(\.path) == ["a", "b"])
        #expect(policy.deletions(among: Self.files, current: "d").map(\.path) == ["a"])
        #expect(RetentionPolicy(keep: 4).deletions(among: Self.files, current: nil).isEmpty)
    }

    @Test func maxTotalCountsTheCurrentFile() {
        let policy = RetentionPolicy(maxTotalBytes: 250)
        #expect(policy.deletions(among: Self.files, current: nil).map(\.path) == ["a", "b"])
        // "d" is being written with 100 bytes so far: the finished ones may take 150.
        #expect(policy.deletions(among: Self.files, current: "d", currentBytes: 100).map(\.path) == ["a", "b"])
        #expect(policy.deletions(among: Self.files, current: "d", currentBytes: 60).map(\.path) == ["a", "b"])
        #expect(policy.deletions(among: Self.files, current: "d", currentBytes: 40).map(\.path) == ["a"])
    }

    @Test func bothLimitsTakeTheStricter() {
        let policy = RetentionPolicy(keep: 3, maxTotalBytes: 150)
        #expect(policy.deletions(among: Self.files, current: nil).map(\.path) == ["a", "b", "c"])
        let loose = RetentionPolicy(keep: 1, maxTotalBytes: 10_000)
        #expect(loose.deletions(among: Self.files, current: nil).map(\.path) == ["a", "b", "c"])
    }

    @Test func equalTimesGoByName() {
        let same = [Self.file("x-0002", 1, 5), Self.file("x-0001", 1, 5)]
        #expect(RetentionPolicy(keep: 1).deletions(among: same, current: nil).map(\.path) == ["x-0001"])
    }

    @Test func freeingTakesTheOldestUntilEnough() {
        #expect(RetentionPolicy.freeing(150, among: Self.files, current: nil).map(\.path) == ["a", "b"])
        // The newest finished file stays, however much is wanted.
        #expect(RetentionPolicy.freeing(1000, among: Self.files, current: "a").map(\.path) == ["b", "c"])
    }

    @Test func aBudgetBelowOneFileKeepsTheNewest() {
        #expect(
            RetentionPolicy(maxTotalBytes: 10).deletions(among: Self.files, current: nil).map(\.path) == [
                "a", "b", "c",
            ])
        #expect(
            RetentionPolicy(maxTotalBytes: 10).deletions(among: Self.files, current: "d", currentBytes: 50).map(\.path)
                == ["a", "b"])
    }

    @Test func validation() throws {
        try RetentionPolicy(keep: 1, maxTotalBytes: 100).validate(segmentBytes: 100)
        #expect(throws: CaptureError.self) { try RetentionPolicy(maxTotalBytes: 99).validate(segmentBytes: 100) }
        #expect(throws: CaptureError.self) { try RetentionPolicy(keep: 0).validate(segmentBytes: nil) }
    }

    /// The folder listing: the template's files and this run's, never another file, a hidden
    /// one, or a folder that happens to match.
    @Test func listingFindsTheSeriesOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["cam-0001.mp4", "cam-0002.mp4", ".cam-0003.mp4.capture-1", "cam.mp4", "cam-0001.mkv", "other.mp4"]
        {
            try Data(count: 10).write(to: folder.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("cam-0009.mp4"), withIntermediateDirectories: false)
        let elsewhere = folder.appendingPathComponent("kept-elsewhere.mp4").path
        try Data(count: 20).write(to: URL(fileURLWithPath: elsewhere))
        let template = try OutputTemplate(folder.path + "/cam.mp4")
        let listed = SeriesFile.list(template: template, written: [elsewhere])
        #expect(
            listed.map { ($0.path as NSString).lastPathComponent }.sorted() == [
                "cam-0001.mp4", "cam-0002.mp4", "kept-elsewhere.mp4",
            ])
        #expect(listed.first { $0.path == elsewhere }?.bytes == 20)
    }
}
