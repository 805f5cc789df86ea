import Foundation
import Testing

/// `make install`, `make uninstall` and `make deb` with the binary under test (CAPTURE_BIN, so
/// nothing is rebuilt): files land where man, bash-completion, zsh and fish look, and the
/// package installs and runs on a machine without the Swift toolchain.
@Suite(.serialized) struct InstallPackageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func tool(_ name: String) throws -> URL { try ShellIntegrationTests.tool(name) }

    static func make(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try tool("make"),
            ["--no-print-directory", "-C", repository.path] + arguments + ["CAPTURE_BIN=\(BuiltBinary.path)"])
    }

    static let installed = [
        "usr/bin/capture", "usr/share/man/man1/capture.1", "usr/share/bash-completion/completions/capture",
        "usr/share/zsh/vendor-completions/_capture", "usr/share/fish/vendor_completions.d/capture.fish",
    ]

    @Test func installPutsEveryFileWhereItsToolLooksAndUninstallRemovesThem() throws {
        let folder = try MicrophoneTestSupport.scratchFolder("install")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root").path
        let install = try Self.make(["install", "PREFIX=/usr", "DESTDIR=\(root)"])
        #expect(install.status == 0, "make install: \(install.stderr)")
        for path in Self.installed {
            #expect(FileManager.default.fileExists(atPath: "\(root)/\(path)"), "not installed: \(path)")
        }
        let manual = try String(contentsOfFile: "\(root)/usr/share/man/man1/capture.1", encoding: .utf8)
        #expect(manual == (try BuiltBinary.run(["--generate-manual"])).stdout)

        // man finds the page by name in the installed tree.
        let man = try ChildProcess.run(
            try Self.tool("man"), ["-M", "\(root)/usr/share/man", "capture"],
            environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"])
        #expect(man.status == 0, "man: \(man.stderr)")
        #expect(man.stdout.contains("DEVICE NAMES"))
        // bash-completion's loader finds the script on demand under XDG_DATA_DIRS/bash-completion.
        let bash = try ChildProcess.run(
            try Self.tool("bash"),
            [
                "--norc", "--noprofile", "-c",
                "source /usr/share/bash-completion/bash_completion && __load_completion capture && complete -p capture",
            ], environment: ["XDG_DATA_DIRS": "\(root)/usr/share"])
        #expect(bash.stdout == "complete -F _capture capture\n", "bash: \(bash.stderr)")
        // fish reads vendor_completions.d under XDG_DATA_DIRS (its own share/config.fish sets the
        // path up, so no --no-config; the user's configuration is an empty folder), for a command
        // it finds on PATH.
        let fish = try ChildProcess.run(
            try Self.tool("fish"), ["-c", "complete -C 'capture rec'"],
            environment: [
                "XDG_DATA_DIRS": "\(root)/usr/share", "XDG_CONFIG_HOME": folder.path, "HOME": folder.path,
                "PATH": "\(root)/usr/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ])
        #expect(fish.stdout.hasPrefix("record\t"), "fish: \(fish.stdout) \(fish.stderr)")
        // zsh: the installed file is an autoloadable completion function.
        let zsh = try ChildProcess.run(
            try Self.tool("zsh"),
            [
                "-f", "-c",
                "fpath=(\(root)/usr/share/zsh/vendor-completions $fpath); autoload -Uz compinit; compinit -u -D; "
                    + "print -r -- $_comps[capture]",
            ])
        #expect(zsh.stdout == "_capture\n", "zsh: \(zsh.stdout) \(zsh.stderr)")

        let uninstall = try Self.make(["uninstall", "PREFIX=/usr", "DESTDIR=\(root)"])
        #expect(uninstall.status == 0, "make uninstall: \(uninstall.stderr)")
        for path in Self.installed {
            #expect(!FileManager.default.fileExists(atPath: "\(root)/\(path)"), "left behind: \(path)")
        }
    }

    /// The Swift toolchain's folder, which the package must not need: the
    /// one `swift` on PATH lives in, as `<root>/usr/bin/swift`.
    static func toolchainRoot() throws -> String {
        let swift = try Self.tool("swift").resolvingSymlinksInPath()
        var url = swift
        for _ in 0..<3 { url.deleteLastPathComponent() }
        #expect(FileManager.default.fileExists(atPath: url.path + "/usr/lib/swift/linux/libswiftCore.so"))
        return url.path
    }

    /// The footprint rests on FoundationEssentials alone: one `import Foundation` anywhere links
    /// full Foundation and ICU's 33 MB of data, which start-up pages in (about 10 MiB more RSS).
    @Test func theBinaryLinksNeitherFoundationNorICU() throws {
        let symbols = try ChildProcess.run(try Self.tool("nm"), [BuiltBinary.path])
        try #require(symbols.status == 0, "nm: \(symbols.stderr)")
        let unwanted = symbols.stdout.split(separator: "\n").filter {
            ($0.contains(" icudt") && $0.hasSuffix("_dat")) || $0.contains("FoundationInternationalization")
                || $0.contains(" $s10Foundation")
        }
        #expect(unwanted.isEmpty, "linked: \(unwanted.prefix(5).joined(separator: "; "))")
    }

    @Test func debianPackageInstallsAndRunsWithoutTheSwiftToolchain() throws {
        let folder = try MicrophoneTestSupport.scratchFolder("deb")
        defer { try? FileManager.default.removeItem(at: folder) }
        let build = try Self.make(["deb", "DEB_DIR=\(folder.path)"])
        try #require(build.status == 0, "make deb: \(build.stderr)")
        let version = try #require(
            (try BuiltBinary.run(["--version"])).stdout.split(separator: "\n").first?.split(separator: " ").last)
        let arch = try ChildProcess.run(try Self.tool("dpkg"), ["--print-architecture"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let deb = folder.appendingPathComponent("capture_\(version)_\(arch).deb").path
        #expect(build.stdout.hasSuffix(deb + "\n"))
        let dpkgDeb = try Self.tool("dpkg-deb")

        // The control fields, Depends from the linked libraries.
        let fields = try ChildProcess.run(dpkgDeb, ["-f", deb, "Package", "Version", "Architecture", "Depends"])
        #expect(fields.stdout.contains("Package: capture\nVersion: \(version)\nArchitecture: \(arch)\n"))
        for package in ["libavdevice59", "libavcodec59", "libswscale6", "libasound2", "libpulse0", "libc6"] {
            #expect(fields.stdout.contains("\(package) (>="), "Depends misses \(package): \(fields.stdout)")
        }
        #expect(!fields.stdout.contains("swift"))
        // A binary with packed relative relocations loads only with glibc 2.36 or later.
        let versions = try ChildProcess.run(try Self.tool("readelf"), ["-V", BuiltBinary.path]).stdout
        if versions.contains("GLIBC_ABI_DT_RELR") {
            #expect(fields.stdout.contains("libc6 (>= 2.36)"), "Depends: \(fields.stdout)")
        }
        let contents = try ChildProcess.run(dpkgDeb, ["-c", deb]).stdout
        for path in [
            "./usr/bin/capture", "./usr/share/man/man1/capture.1.gz", "./usr/share/bash-completion/completions/capture",
            "./usr/share/zsh/vendor-completions/_capture", "./usr/share/fish/vendor_completions.d/capture.fish",
            "./usr/share/doc/capture/README.md", "./usr/share/doc/capture/copyright",
            "./usr/share/doc/capture/changelog.gz",
        ] {
            #expect(contents.contains(" \(path)\n"), "the package misses \(path)")
        }
        #expect(contents.contains("root/root"))

        // apt resolves the package's Depends against Debian's packages (simulated: nothing installed).
        let apt = try ChildProcess.run(try Self.tool("apt-get"), ["install", "--simulate", deb])
        #expect(apt.status == 0, "apt-get install --simulate: \(apt.stdout) \(apt.stderr)")
        #expect(apt.stdout.contains("Inst capture (\(version) "), "apt: \(apt.stdout)")
        #expect(contents.contains(" ./usr/share/doc/capture/README.md\n"))
        let md5sums = try ChildProcess.run(dpkgDeb, ["--info", deb, "md5sums"]).stdout
        #expect(md5sums.contains("  usr/bin/capture\n"))

        // lintian: no error (E:) tag.
        let lintian = try ChildProcess.run(try Self.tool("lintian"), ["--tag-display-limit", "0", deb])
        let errors = lintian.stdout.split(separator: "\n").filter { $0.hasPrefix("E:") }
        #expect(errors.isEmpty, "lintian: \(errors.joined(separator: "\n"))")

        // Extracted, every library the binary needs resolves, and none from the toolchain.
        let tree = folder.appendingPathComponent("tree").path
        #expect(try ChildProcess.run(dpkgDeb, ["-x", deb, tree]).status == 0)
        let binary = "\(tree)/usr/bin/capture"
        let toolchain = try Self.toolchainRoot()
        let ldd = try ChildProcess.run(try Self.tool("ldd"), [binary])
        #expect(ldd.status == 0)
        #expect(!ldd.stdout.contains("not found"), "ldd: \(ldd.stdout)")
        #expect(!ldd.stdout.contains(toolchain + "/"), "resolved in the toolchain: \(ldd.stdout)")
        #expect(ldd.stdout.contains("libavformat.so.59 => /"))
        // libavdevice is loaded only when a device is opened: `record` below shows it is found.
        #expect(!ldd.stdout.contains("libavdevice"), "linked at start-up: \(ldd.stdout)")

        // Run with the toolchain's folder hidden under an empty one, in a mount namespace of its own.
        let empty = folder.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let output = folder.appendingPathComponent("clip.mp4").path
        let script = """
            set -e
            mount --bind \(empty) \(toolchain)
            test ! -e \(toolchain)/usr/lib/swift/linux/libswiftCore.so
            \(binary) list
            \(binary) record --video test --duration 1 --quiet \(output)
            """
        let unshare = try ChildProcess.run(
            try Self.tool("unshare"), (getuid() == 0 ? ["-m"] : ["-r", "-m"]) + ["sh", "-c", script])
        #expect(unshare.status == 0, "the packaged binary without the toolchain: \(unshare.stderr)")
        #expect(unshare.stdout.contains("Cameras:\n"))
        let probe = try ChildProcess.run(
            try Self.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_name:format=duration", "-of",
                "default=nw=1", output,
            ])
        #expect(probe.stdout.contains("codec_name=h264"))
        let duration = probe.stdout.split(separator: "\n").first { $0.hasPrefix("duration=") }
            .flatMap { Double($0.dropFirst("duration=".count)) }
        #expect(duration.map { abs($0 - 1) < 0.3 } == true, "duration: \(probe.stdout)")
    }
}
