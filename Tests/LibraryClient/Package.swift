// swift-tools-version:6.0
// A program outside the capture package that uses CaptureCore as a library, as README's Library
// section shows; the test suite builds and runs it (LibraryClientTests).
import PackageDescription

let package = Package(
    name: "LibraryClient",
    dependencies: [.package(name: "capture", path: "../..")],
    targets: [
        .executableTarget(
            name: "record-clip",
            dependencies: [.product(name: "CaptureCore", package: "capture")]
        )
    ],
    swiftLanguageModes: [.v6]
)
