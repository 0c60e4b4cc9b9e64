// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Heed",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Heed", targets: ["Heed"]),
        .executable(name: "heed", targets: ["heed"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // C libraries, reached through pkg-config; Debian names the packages that provide them.
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]
        ),
        .systemLibrary(
            name: "CSpeexDSP",
            pkgConfig: "speexdsp",
            providers: [.apt(["libspeexdsp-dev"])]
        ),
        .systemLibrary(
            name: "CWebRTC",
            pkgConfig: "webrtc-audio-processing",
            providers: [.apt(["libwebrtc-audio-processing-dev"])]
        ),
        // WebRTC's noise suppressor is C++; this shim gives it a C face (Sources/CWebRTCNoise).
        // SwiftPM drops the -D flags of the library's pkg-config file (with a warning), so they
        // are repeated here.
        .target(name: "CWebRTCNoise", dependencies: ["CWebRTC"],
                cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")]),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // FLAC, Ogg Vorbis, Opus and MP3 recordings are read through libsndfile (1.2).
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // The service's MQTT client (Hermes) and its systemd notifications.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(
            name: "CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),

        // Stage 1: audio in (WAV, raw PCM, resampling, noise suppression, endpointing).
        .target(name: "HeedAudio", dependencies: ["CSpeexDSP", "CWebRTCNoise", "CSndFile"]),
        // Stage 1, live: ALSA capture and the lock-free ring (the pipeline checks the microphone
        // permission before it opens a device).
        .target(name: "HeedCapture", dependencies: ["CALSA", "HeedAudio"]),
        // PocketSphinx's Gaussian evaluation for PTM models, several Gaussians per instruction
        // (Sources/CPTMScorer: the only file that knows PocketSphinx's internal structures).
        .target(name: "CPTMScorer", dependencies: ["CPocketSphinx"]),
        // Stage 2: the PocketSphinx decoder and the grammar it searches.
        .target(name: "HeedRecognition", dependencies: ["CPocketSphinx", "CPTMScorer", "HeedAudio"]),
        // YAML with a bound on alias expansion, for every file Heed reads as YAML.
        .target(name: "HeedYAML", dependencies: ["CYAML"]),
        // Stage 3: word sequences to intents.
        .target(name: "HeedIntents", dependencies: ["HeedYAML"]),
        // Stage 4: who may hear and decode: app manifests, admin policy, the per-user decision store.
        .target(name: "HeedAuthorization", dependencies: [
            "HeedYAML",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Donated shortcuts (invocation phrases) and suggestions, in the same per-user store.
        .target(name: "HeedShortcuts", dependencies: ["HeedIntents", "HeedAuthorization", .product(name: "GRDB", package: "GRDB.swift")]),
        // What apps import: the pipeline over the stages.
        .target(name: "Heed", dependencies: ["HeedAudio", "HeedCapture", "HeedRecognition", "HeedIntents", "HeedAuthorization", "HeedShortcuts", "HeedYAML"]),
        // `heed serve`: the pipeline as a service: Wyoming server, Hermes over MQTT (and a hub for
        // other boards), wake phrase, systemd.
        .target(name: "HeedService", dependencies: ["Heed", "HeedAudio", "HeedShortcuts", "HeedYAML", "CMosquitto", "CSystemd"]),
        // The command-line layer.
        .executableTarget(
            name: "heed",
            dependencies: ["Heed", "HeedService", "HeedAudio", "HeedRecognition", "HeedCapture", "HeedShortcuts",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // `make fuzz` only: libFuzzer targets over every parser (built with -sanitize=fuzzer),
        // or, in a normal build, a replayer for what the fuzzer found. Not a product.
        .executableTarget(name: "heed-fuzz", dependencies: ["Heed", "HeedAudio", "HeedRecognition", "HeedService"], path: "Sources/HeedFuzz"),

        // `make bench` only: ring-buffer throughput between two threads (not a product).
        .executableTarget(name: "heed-ring-bench", dependencies: ["HeedCapture"], path: "Sources/HeedRingBench"),

        // Paths to the recordings the tests decode; not part of any product.
        .target(name: "HeedTestSupport", dependencies: ["HeedAuthorization"], path: "Tests/Support"),
        .testTarget(name: "HeedAudioTests", dependencies: ["HeedAudio", "HeedTestSupport"]),
        .testTarget(name: "HeedCaptureTests", dependencies: ["HeedCapture", "HeedTestSupport"]),
        .testTarget(name: "HeedRecognitionTests", dependencies: ["HeedRecognition", "HeedAudio", "HeedTestSupport"]),
        .testTarget(name: "HeedYAMLTests", dependencies: ["HeedYAML"]),
        .testTarget(name: "HeedIntentsTests", dependencies: ["HeedIntents"]),
        .testTarget(name: "HeedShortcutsTests", dependencies: ["HeedShortcuts", "HeedTestSupport"]),
        .testTarget(name: "HeedAuthorizationTests", dependencies: ["HeedAuthorization", "HeedTestSupport"]),
        .testTarget(name: "HeedServiceTests", dependencies: ["HeedService", "Heed", "HeedAudio", "HeedTestSupport"]),
        .testTarget(name: "HeedTests", dependencies: ["Heed", "HeedAudio", "HeedRecognition", "HeedShortcuts", "HeedTestSupport"]),
        // Runs the built `heed` executable as a user would.
        .testTarget(name: "HeedCLITests", dependencies: ["heed", "heed-fuzz", "HeedAudio", "HeedTestSupport"], exclude: ["Resources"]),
    ]
)
