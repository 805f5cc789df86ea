import Foundation
import Testing

/// An output name that is a directory is refused as a directory, with or without --force.
@Suite struct RecordOutputDirectoryTests {
    @Test(arguments: [false, true]) func aDirectoryIsNotAnOutputFile(force: Bool) throws {
        let folder = try MicrophoneTestSupport.scratchFolder("output-dir")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("dir.mp4")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: false)
        let result = try BuiltBinary.run(
            ["record", "--video", "test", "--duration", "0.5"] + (force ? ["--force"] : []) + [output.path])
        #expect(result.status == 73)
        #expect(result.stderr == "Error: \(output.path): cannot create the output file: it is a directory\n")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: output.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}
