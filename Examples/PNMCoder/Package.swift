// swift-tools-version: 6.0
import PackageDescription

// An example of a library user adding a format to AnimatedCore without forking it: a small
// PPM/PAM coder registered with `CoderRegistry.shared`, after which the unchanged loader (files,
// folders, sprite sheets, stdin) reads PPM and PAM like any built-in format.
// Build and run from this folder:  swift run pnm-play IMAGE.pam /tmp/frames
//
// A path dependency is identified by its folder's name (the clone's, e.g. "animplay"), not by
// the name in its manifest, so the product's package is named from the folder two levels up.
let root = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "animplay").lowercased()

let package = Package(
    name: "pnm-coder",
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "pnm-play",
            dependencies: [.product(name: "AnimatedCore", package: root)],
            path: "Sources/pnm-play"
        ),
    ],
    swiftLanguageModes: [.v6]
)
