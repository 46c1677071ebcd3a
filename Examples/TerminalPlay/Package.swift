// swift-tools-version: 6.0
import PackageDescription

// An example of AnimatedTerminal used as a library by another package: play a GIF, APNG or WebP
// once in the terminal, in cells, without curses. Build and run from this folder:
//   swift run terminal-play ../../samples/bounce.gif
//
// A path dependency is identified by its folder's name (the clone's, e.g. "animplay"), not by
// the name in its manifest, so the product's package is named from the folder two levels up.
let root = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "animplay").lowercased()

let package = Package(
    name: "terminal-play",
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "terminal-play",
            dependencies: [.product(name: "AnimatedCore", package: root),
                           .product(name: "AnimatedTerminal", package: root)],
            path: "Sources/TerminalPlay"
        ),
    ],
    swiftLanguageModes: [.v6]
)
