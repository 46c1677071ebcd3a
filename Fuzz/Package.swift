// swift-tools-version: 6.0
import PackageDescription

// The libFuzzer harnesses, one executable per input parser, built by SwiftPM with its own build
// path so that the package's own builds never see the sanitizers (Fuzz/run.sh does this):
//   swift build -c release --package-path Fuzz --scratch-path .build-fuzz \
//       --sanitize fuzzer --sanitize address -Xswiftc -enable-testing
// `-enable-testing` lets the harnesses `@testable import` the decoders and the terminal reply
// parser, which are `package` API (package access does not reach another package). libFuzzer
// brings `main`; SwiftPM renames the executables' entry points, so they do not collide.
// A path dependency is identified by its folder's name (the clone's, e.g. "animplay"), not by
// the name in its manifest, so the products' package is named from the folder one level up.
let root = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "animplay").lowercased()

let harnesses = ["gif": "FuzzGIF.swift", "apng": "FuzzAPNG.swift", "webp": "FuzzWebP.swift",
                 "jpeg": "FuzzJPEG.swift", "avif": "FuzzAVIF.swift", "atlas": "FuzzAtlas.swift",
                 "terminal": "FuzzTerminal.swift", "encode": "FuzzEncode.swift"]
let core = Target.Dependency.product(name: "AnimatedCore", package: root)
let terminal = Target.Dependency.product(name: "AnimatedTerminal", package: root)

let package = Package(
    name: "animplay-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [core], path: "Harnesses", sources: ["FuzzSupport.swift"]),
    ] + harnesses.sorted(by: { $0.key < $1.key }).map { name, file in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport", core, terminal],
                          path: "Harnesses", sources: [file])
    },
    swiftLanguageModes: [.v6]
)
