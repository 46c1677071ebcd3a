// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for animplay's decoders, kept out of the main package so that building or testing
// animplay never fetches or builds the benchmark tooling. Run from this directory:
//   ./make-inputs.sh && swift package benchmark
// (ordo-one/benchmark needs the MallocInterposer trait named here, and tools version 6.1.)
// A path dependency is identified by its folder's name (e.g. the clone's), not by the name in
// its manifest, so name the parent folder.
let animplay = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "animplay").lowercased()

let package = Package(
    name: "animplay-benchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The benchmark plugin finds its targets under Benchmarks/<target>.
        .executableTarget(
            name: "CompositedDecode",
            dependencies: [
                .product(name: "AnimatedCore", package: animplay),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CompositedDecode",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
