import Foundation
import Testing

@testable import CaptureCore

/// What `capture snapshot` decides before any device opens, and how a picture reaches its name.
@Suite struct SnapshotPlanTests {
    @Test(arguments: [
        ("a.jpg", StillFormat.jpeg), ("b.JPEG", .jpeg), ("dir.x/c.png", .png), ("d.ppm", .ppm), ("e.PGM", .pgm),
    ])
    func theExtensionChoosesTheFormat(path: String, format: StillFormat) throws {
        #expect(try StillFormat.forPath(path) == format)
    }

    @Test(arguments: [("clip.mp4", ".mp4 is no picture format"), ("still", "no extension is no picture format")])
    func anotherExtensionIsAUsageError(path: String, says: String) {
        #expect {
            try StillFormat.forPath(path)
        } throws: { error in
            let error = error as? CaptureError
            return error?.exitCode == 64 && error?.description == "\(path): \(says); use .jpg, .png, .ppm or .pgm"
        }
    }

    /// One still keeps its name; a numbered series knows every name up front; a series named by
    /// time whose names change less often than pictures are taken is refused before anything opens.
    @Test func namesForOneStillAndForASeries() throws {
        var request = SnapshotRequest(device: .test, output: "shot.jpg")
        #expect(try Snapshooter.names(for: request).known == ["shot.jpg"])
        request.output = "100%%.jpg"
        #expect(try Snapshooter.names(for: request).known == ["100%.jpg"])
        request.output = "shot-%n.png"
        request.count = 3
        #expect(try Snapshooter.names(for: request).known == ["shot-0001.png", "shot-0002.png", "shot-0003.png"])
        request.output = "shot-%H%M.png"
        request.interval = 10
        #expect {
            try Snapshooter.validate(request)
        } throws: { error in
            (error as? CaptureError)?.description
                == "shot-%H%M.png: its names change every 60 s, less often than pictures are taken (every 10 s); "
                + "add %n, or a finer time field"
        }
        request.interval = 60
        #expect(try Snapshooter.names(for: request).known == [], "names that hold times are known only as they come")
    }

    /// A picture reaches its name whole, never replacing a file unasked, and leaves no hidden file.
    @Test func aPictureReachesItsNameWholeAndReplacesOnlyWhenAsked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("still-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("still.pgm").path
        try StillFile.write(Array("first".utf8), to: path, replacing: false)
        #expect(FileManager.default.contents(atPath: path) == Data("first".utf8))
        #expect {
            try StillFile.write(Array("second".utf8), to: path, replacing: false)
        } throws: { error in
            (error as? CaptureError) == .outputExists(path: path)
        }
        #expect(FileManager.default.contents(atPath: path) == Data("first".utf8), "the old picture stays")
        try StillFile.write(Array("third".utf8), to: path, replacing: true)
        #expect(FileManager.default.contents(atPath: path) == Data("third".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["still.pgm"])
    }

    @Test func aFolderThatIsNotThereIsNoPicture() {
        let path = "/nonexistent-\(UUID().uuidString)/still.jpg"
        #expect {
            try StillFile.write([1, 2, 3], to: path, replacing: false)
        } throws: { error in
            (error as? CaptureError)?.exitCode == 73
        }
    }
}
