// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "capture",
    products: [
        .library(name: "CaptureCore", targets: ["CaptureCore"]),
        .executable(name: "capture", targets: ["capture"]),
    ],
    targets: [
        // FFmpeg's libraries through pkg-config. libavformat.pc does not pull the others in, so
        // module.modulemap links each one. libavdevice is not linked: CShim loads it when a
        // device is first opened (CShim_avdevice_register_all).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [
                .apt([
                    "libavdevice-dev", "libavformat-dev", "libavcodec-dev", "libswscale-dev",
                    "libswresample-dev", "libavutil-dev",
                ])
            ]
        ),
        .systemLibrary(
            name: "CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // No pkgConfig: libpulse.pc adds -D_REENTRANT and -pthread, which SwiftPM refuses with a
        // warning; the headers are in the default path and module.modulemap links the library.
        .systemLibrary(
            name: "CPulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // Stand-ins for what Swift cannot import: the kernel's VIDIOC_* macros (linux/videodev2.h),
        // variadic ioctl(2), the variadic log callbacks of FFmpeg and libasound; and libavdevice,
        // loaded on first use.
        .target(
            name: "CShim",
            dependencies: ["CFFmpeg", "CALSA"]
        ),
        .target(
            name: "CaptureCore",
            dependencies: ["CFFmpeg", "CALSA", "CPulse", "CShim"]
        ),
        .executableTarget(
            name: "capture",
            dependencies: ["CaptureCore", "CFFmpeg", "CShim"]
        ),
        .testTarget(
            name: "CaptureCoreTests",
            dependencies: ["CaptureCore", "CFFmpeg", "CShim"]
        ),
        .testTarget(
            name: "captureTests",
            dependencies: ["capture"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
