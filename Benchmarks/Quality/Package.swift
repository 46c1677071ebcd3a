// swift-tools-version: 6.0
import PackageDescription

// The picture-quality benchmark's measuring tool, kept out of the main package (and out of the
// ordo-one benchmarks one level up, so it builds in seconds). Driven by ../quality-bench.py.
// A path dependency is identified by its folder's name (e.g. the clone's): name the root's.
let root = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "animplay").lowercased()

let package = Package(
    name: "quality-bench",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "quality-bench",
            dependencies: [.product(name: "AnimatedCore", package: root), .product(name: "AnimatedTerminal", package: root)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
