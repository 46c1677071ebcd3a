// swift-tools-version: 6.0
import PackageDescription

// Layered library targets (the compiler enforces the layers: a target imports only those below it):
//   AnimatedCore      model, byte sources, codecs, compositor, sprites, scaling, playback, export
//   AnimatedTerminal  terminal queries and replies, the four outputs (cells, kitty, sixel, iTerm2)
//   AnimatedNet       download, HTTP cache, revalidation, the URL policy
// animplay is the CLI and the ncurses screen.
// Each C library is a module whose shim wraps what Swift cannot call directly: C globals such as
// stdscr in a shim header; libpng's setjmp-based errors in a C target of their own (CPNG).
let package = Package(
    name: "animplay",
    products: [
        .executable(name: "animplay", targets: ["animplay"]),
        .library(name: "AnimatedCore", targets: ["AnimatedCore"]),
        .library(name: "AnimatedTerminal", targets: ["AnimatedTerminal"]),
        .library(name: "AnimatedNet", targets: ["AnimatedNet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // giflib ships no pkg-config file on some distributions: link it by name.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF",
                       providers: [.apt(["libgif-dev"])]),
        // C libraries loaded with dlopen on first use (CPNG, CJPEG, CWebP): see animplay_lazy.h.
        .target(name: "CLazyLib", path: "Sources/CLazyLib"),
        // libpng behind a setjmp-free C interface (libpng-dev, zlib1g-dev: scripts/install-deps),
        // loaded on first use: headers only at build time, no link.
        .target(name: "CPNG", dependencies: ["CLazyLib"], path: "Sources/CPNG"),
        // libjpeg-turbo behind a setjmp-free C interface (libjpeg62-turbo-dev: scripts/install-deps),
        // loaded on first use.
        .target(name: "CJPEG", dependencies: ["CLazyLib"], path: "Sources/CJPEG"),
        // libavif (dav1d inside, libavif-dev), loaded with dlopen on the first AVIF (see
        // animplay_avif.c): headers only at build time, no link.
        .target(name: "CAVIF", dependencies: ["CLazyLib"], path: "Sources/CAVIF"),
        // libimagequant quantises GIF frames of more than 256 colours (libimagequant-dev), loaded
        // with dlopen on the first GIF encoded (see animplay_liq.c): headers only, no link.
        .target(name: "CImageQuant", dependencies: ["CLazyLib"], path: "Sources/CImageQuant"),
        // libwebp, libwebpdemux and libwebpmux (libwebp-dev), loaded on first use.
        .target(name: "CWebP", dependencies: ["CLazyLib"], path: "Sources/CWebP"),
        // zlib for kitty graphics payloads (o=z).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // zstd for the sixel frames the frame buffer holds (see SixelFramePreparer).
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"])]),
        // Linked by name: ncursesw's pkg-config adds -D flags SwiftPM rejects with a warning.
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses",
                       providers: [.apt(["libncurses-dev"])]),
        // libcurl is loaded with dlopen on the first URL (see its shim.h): headers only here.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        // openat and the registry of partial cache files removed on signals and exit.
        .target(name: "CFileGuard", path: "Sources/CFileGuard"),
        // Threads started on another core than their creator's (cpu_set_t's macros are C only).
        .target(name: "CThreadStart", path: "Sources/CThreadStart"),
        // The terminal given back when a signal animplay does not handle ends it (Ctrl-\, a trap).
        .target(name: "CTerminalRescue", path: "Sources/CTerminalRescue"),
        .target(
            name: "AnimatedCore",
            dependencies: ["CGIF", "CPNG", "CJPEG", "CAVIF", "CWebP", "CImageQuant", "CThreadStart"]
        ),
        .target(name: "AnimatedTerminal", dependencies: ["AnimatedCore", "CPNG", "CZlib", "CZstd"]),
        .target(name: "AnimatedNet", dependencies: ["AnimatedCore", "CCurl", "CZlib", "CFileGuard"]),
        .executableTarget(
            name: "animplay",
            dependencies: [
                "AnimatedCore", "AnimatedTerminal", "AnimatedNet", "CNcurses", "CTerminalRescue",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The picture-quality benchmark's measuring tool (Benchmarks/quality-bench.py drives it): a target
        // of this package, not a product, so it reaches `package` API (PictureQuality, TerminalScreen).
        .executableTarget(name: "quality-bench", dependencies: ["AnimatedCore", "AnimatedTerminal"],
                          path: "Benchmarks/Quality"),
        // Test support (not a product): terminal emulators that check the outputs' bytes.
        .target(name: "AnimatedTestSupport", dependencies: ["AnimatedCore", "AnimatedTerminal"]),
        .testTarget(name: "AnimatedCoreTests",
                    dependencies: ["AnimatedCore", "AnimatedTerminal", "AnimatedNet", "AnimatedTestSupport", "CWebP",
                                   "CLazyLib", "CThreadStart", "CImageQuant",
                                   // The exit statuses the hostile fixtures name are the CLI's policy.
                                   "animplay"],
                    // libwebpdemux's WebPAnimDecoder, the reference WebPAnimDecoderTests compares
                    // with, is called directly (animplay itself loads libwebp on first use).
                    linkerSettings: [.linkedLibrary("webpdemux"), .linkedLibrary("webp")]),
        // The CLI's pure logic (startup, key decoding, status line, help texts).
        .testTarget(name: "animplayTests", dependencies: ["animplay", "AnimatedCore", "AnimatedTerminal", "AnimatedNet", "CNcurses"]),
    ],
    swiftLanguageModes: [.v6]
)
