// swift-tools-version: 6.0
import PackageDescription

// An example of AnimatedCore used as a library by another package: decode a GIF, APNG or WebP
// (from a file, or from bytes in memory), composite every frame, write each as a PAM file.
// Build and run from this folder:  swift run frame-dump ../../samples/bounce.gif /tmp/frames
//
// A path dependency is identified by its folder's name (the clone's, e.g. "animplay"), not by
// the name in its manifest, so the product's package is named from the folder two levels up.
let root = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "animplay").lowercased()

let package = Package(
    name: "frame-dump",
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "frame-dump",
            dependencies: [.product(name: "AnimatedCore", package: root)],
            path: "Sources/FrameDump"
        ),
    ],
    swiftLanguageModes: [.v6]
)
