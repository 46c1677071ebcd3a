// swift-tools-version: 6.0
import PackageDescription

// The libFuzzer harnesses, a package of their own that uses the main package by path, so that
// the flags stay on the command line (Fuzz/run.sh, nothing unsafe in either manifest):
//   swift build -c release --scratch-path .build-fuzz --package-path Fuzz \
//     --sanitize fuzzer --sanitize address
// SwiftPM then instruments every target (AnimatedCore, its C shims, CPNG's C code) for coverage
// and AddressSanitizer and links libFuzzer's main into each harness; -O as the shipped binary,
// checked arithmetic and bounds included. One executable per harness: libFuzzer calls its
// LLVMFuzzerTestOneInput.
let package = Package(
    name: "animplay-fuzz",
    dependencies: [
        .package(name: "animplay", path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "AnimatedCore", package: "animplay")],
                path: "Harnesses/FuzzSupport"),
        .executableTarget(name: "fuzz-gif", dependencies: ["FuzzSupport", .product(name: "AnimatedCore", package: "animplay")],
                          path: "Harnesses/fuzz-gif"),
        .executableTarget(name: "fuzz-apng", dependencies: ["FuzzSupport", .product(name: "AnimatedCore", package: "animplay")],
                          path: "Harnesses/fuzz-apng"),
        .executableTarget(name: "fuzz-webp", dependencies: ["FuzzSupport", .product(name: "AnimatedCore", package: "animplay")],
                          path: "Harnesses/fuzz-webp"),
        .executableTarget(name: "fuzz-atlas", dependencies: [.product(name: "AnimatedCore", package: "animplay")],
                          path: "Harnesses/fuzz-atlas"),
        .executableTarget(name: "fuzz-terminal", dependencies: [.product(name: "AnimatedTerminal", package: "animplay")],
                          path: "Harnesses/fuzz-terminal"),
    ],
    swiftLanguageModes: [.v6]
)
