// swift-tools-version: 6.0
import PackageDescription

// AnimatedCore is everything that is not the terminal; animplay is the CLI and the ncurses screen.
// Each C library is a system-library module whose shim header wraps what Swift cannot call
// directly (setjmp-based libpng errors, C globals such as stdscr).
let package = Package(
    name: "animplay",
    products: [
        .executable(name: "animplay", targets: ["animplay"]),
        .library(name: "AnimatedCore", targets: ["AnimatedCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // giflib ships no pkg-config file on some distributions: link it by name.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF",
                       providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng16",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses", pkgConfig: "ncursesw",
                       providers: [.apt(["libncurses-dev"])]),
        .target(
            name: "AnimatedCore",
            dependencies: ["CGIF", "CPNG", "CWebP"]
        ),
        .executableTarget(
            name: "animplay",
            dependencies: [
                "AnimatedCore", "CNcurses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "AnimatedCoreTests", dependencies: ["AnimatedCore"]),
        // The CLI's pure logic (startup, key decoding, status line, help texts).
        .testTarget(name: "animplayTests", dependencies: ["animplay", "AnimatedCore", "CNcurses"]),
    ],
    swiftLanguageModes: [.v6]
)
