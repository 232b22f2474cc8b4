// swift-tools-version:6.0
// FenceLab: geofence and GPS-track logic tested at scale.
// No package dependencies: the toolchain plus GSL and zlib from the system (see README).
//
// The targets and what each may use (Tests/RepositoryTests/ModuleLayoutTests.swift checks the
// imports of every source file against this list):
//
//   CLibm → GeoPolicy    the engine an app ships: pure Swift, no Foundation, no GSL, no I/O;
//                        libm only (CLibm: glibc's sincos, which the C-library module hides)
//   CGSL → GSLKit        GSL; only GSLKit imports CGSL
//   _FenceLabSupport     hidden plumbing (strict JSON, input files, SHA-256, spelling, atomic
//                        output, gzip, work pool, progress, signals, engine descendants); the
//                        only importer of Glibc (Syscalls.swift), CMalloc, CZlib (zlib) and
//                        CProcessControl; uses GeoPolicy's ShownText
//   DriveSim             scenarios and the drive generator    (GeoPolicy, GSLKit, support)
//   DeviceLogKit         device-log readers                   (GeoPolicy, support)
//   ReportKit            JSON value, HTML frame, text, plots  (GeoPolicy, DeviceLogKit, support)
//   FenceLab             the harness and its library face     (all of the above)
//   FenceLabSweep        threshold sweeps and merge           (FenceLab and below)
//   FenceLabCalibration  noise calibration from a recording   (no FenceLab)
//   CReference → FenceLabBench  the benchmark kit a team's own bench executable uses: rows,
//                        timing loop, callgrind counts, baselines, gate (GeoPolicy, GSLKit,
//                        DriveSim, support, options; no FenceLab, so a team's release build of it
//                        stays small)
//   _CommandLineKit      option parser and exit codes (hidden)
//   FenceLabEngineBench  `fencelab bench-engine`: an external engine's latency and cost
//                        (FenceLab, FenceLabBench)
//   FenceLabCLI          the `fencelab` executable: parsing and printing only
import PackageDescription

// The release `fencelab` on Linux carries the Swift runtime and Foundation (the toolchain's static
// archives, as `--static-swift-stdlib` links them) instead of loading 14 shared libraries at
// start: their relocations took 6 of the 10 ms of a `fencelab --help`, and a 142-point sweep
// takes about 10 % less CPU time. glibc, GSL, zlib and the C++ runtime stay shared. `-static-stdlib`
// brings the Swift runtime; the archives listed after it are what Foundation's shared library
// holds, by their Swift 6.3 names, so the setting applies to Swift 6.3 only (other toolchains
// link as before, or statically with `--static-swift-stdlib`). Debug builds (the tests) keep the
// shared libraries.
//
// The same release executable is position-dependent (`-no-pie`): its own code and data sit at the
// addresses the linker gave them, so the loader has none of the 80 000 relative relocations of
// the position-independent build to apply (1.9 MB of them, touching 200 pages at every start).
// That takes `fencelab --help` from 2.1–2.9 to 1.7 ms of CPU and a 142-point sweep about 7 % less
// (docs/benchmarks.md). The price is that the executable's own image is not placed at a random
// address (its shared libraries, stack and heap still are): a local command-line tool that reads
// the user's own files, not a service.
#if compiler(>=6.3) && !compiler(>=6.4)
    let staticRuntimeLinkerSettings: [LinkerSetting] = [
        .unsafeFlags(
            [
                "-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
                "-l_FoundationCollections", "-lswiftSynchronization", "-lswift_RegexParser",
                "-lswift_StringProcessing", "-lswift_Concurrency", "-lswift_Builtin_float",
                "-Xclang-linker", "-no-pie",
            ],
            .when(platforms: [.linux], configuration: .release)
        )
    ]
#else
    let staticRuntimeLinkerSettings: [LinkerSetting] = []
#endif

// The targets only the executables use are compiled to reach a generic type's metadata through the
// accessor the compiler emits for it, not by its mangled name: the runtime then has no name to
// demangle and no generic requirement (`Key: Hashable`, …) to prove by scanning every protocol
// conformance record in the executable, about 150 000 instructions each the first time a type is
// met. A 142-point sweep did 35 such scans (1.9 % of its instructions; docs/benchmarks.md).
// The library targets get no unsafe flag of this kind, so that other packages can depend on them.
let executableSwiftSettings: [SwiftSetting] = [
    .unsafeFlags(
        ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
        .when(configuration: .release)
    )
]

let package = Package(
    name: "FenceLab",
    // The newest Apple API the code uses decides the floor: `String(validating:as:)` (strict
    // UTF-8 decoding of device logs, Swift 6.0 standard library) needs macOS 15; `ContinuousClock`
    // and `Duration` (throughput timing) need macOS 13. Linux has no such floor. Not verified on a
    // Mac (see README). Only macOS is declared: the harness needs `Process`, which iOS lacks.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GeoPolicy", targets: ["GeoPolicy"]),
        .library(name: "DeviceLogKit", targets: ["DeviceLogKit"]),
        .library(name: "FenceLab", targets: ["FenceLab"]),
        .library(name: "FenceLabBench", targets: ["FenceLabBench"]),
        .executable(name: "fencelab", targets: ["FenceLabCLI"]),
        .executable(name: "fencelab-bench", targets: ["fencelab-bench"]),
    ],
    targets: [
        // The engine an app ships: pure Swift, no GSL, no I/O; libm only.
        .target(name: "GeoPolicy", dependencies: ["CLibm"]),
        // glibc's sincos (a GNU extension the Glibc module does not show); only GeoPolicy imports it.
        .systemLibrary(name: "CLibm"),
        // GSL as a system library; only GSLKit imports it.
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"]), .brew(["gsl"])]
        ),
        .target(name: "GSLKit", dependencies: ["CGSL"]),
        // glibc's mallopt, for the one allocator setting the harness makes.
        .systemLibrary(name: "CMalloc"),
        // zlib, for the gzip-compressed sweep table (`--csv-gzip`); only _FenceLabSupport imports it.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // prctl(PR_SET_CHILD_SUBREAPER) behind a non-variadic wrapper (Swift cannot call prctl) and
        // glibc's posix_spawn_file_actions_addclosefrom_np, for the engines' process box.
        .systemLibrary(name: "CProcessControl"),
        // GeoPolicy for its one rule of echoing input text (ShownText); nothing of the engine.
        .target(name: "_FenceLabSupport", dependencies: ["GeoPolicy", "CMalloc", "CZlib", "CProcessControl"]),
        .target(name: "DriveSim", dependencies: ["GeoPolicy", "GSLKit", "_FenceLabSupport"]),
        // Strict device-log readers (CSV, GPX, JSON Lines, NMEA): no harness, no GSL calls.
        .target(name: "DeviceLogKit", dependencies: ["GeoPolicy", "_FenceLabSupport"]),
        // DeviceLogKit for the one `ingest` object both report writers render.
        .target(name: "ReportKit", dependencies: ["GeoPolicy", "DeviceLogKit", "_FenceLabSupport"]),
        .target(
            name: "FenceLab",
            dependencies: ["GeoPolicy", "GSLKit", "DriveSim", "DeviceLogKit", "ReportKit", "_FenceLabSupport"]
        ),
        .target(
            name: "FenceLabSweep",
            dependencies: ["FenceLab", "GeoPolicy", "GSLKit", "DriveSim", "ReportKit", "_FenceLabSupport"],
            swiftSettings: executableSwiftSettings
        ),
        .target(
            name: "FenceLabCalibration",
            dependencies: ["GeoPolicy", "GSLKit", "DriveSim", "DeviceLogKit", "ReportKit", "_FenceLabSupport"],
            swiftSettings: executableSwiftSettings
        ),
        .target(name: "_CommandLineKit", dependencies: ["GeoPolicy", "_FenceLabSupport"]),
        // The benchmark kit (a library product) and its C reference kernels and callgrind requests.
        .target(
            name: "CReference",
            dependencies: ["CGSL"],
            path: "Benchmarks/CReference",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(
            name: "FenceLabBench",
            dependencies: ["CReference", "GeoPolicy", "GSLKit", "DriveSim", "_FenceLabSupport", "_CommandLineKit"]
        ),
        .target(
            name: "FenceLabEngineBench",
            dependencies: ["FenceLab", "FenceLabBench", "GeoPolicy", "DriveSim", "_FenceLabSupport"],
            swiftSettings: executableSwiftSettings
        ),
        .executableTarget(
            name: "FenceLabCLI",
            dependencies: [
                "FenceLab", "FenceLabSweep", "FenceLabCalibration", "FenceLabEngineBench", "_CommandLineKit",
                "GeoPolicy", "DeviceLogKit", "DriveSim", "ReportKit", "_FenceLabSupport",
            ],
            swiftSettings: executableSwiftSettings,
            linkerSettings: staticRuntimeLinkerSettings
        ),

        // FenceLab's own performance-regression suite: rows registered with the kit.
        .executableTarget(
            name: "fencelab-bench",
            dependencies: [
                "FenceLabBench", "FenceLab", "FenceLabSweep", "FenceLabCalibration", "GeoPolicy", "DriveSim",
                "DeviceLogKit", "GSLKit",
                "ReportKit", "_FenceLabSupport", "_CommandLineKit", "CReference",
            ],
            path: "Benchmarks/fencelab-bench",
            swiftSettings: executableSwiftSettings
        ),

        // Shared test helpers (explicit tolerances, binary lookup).
        .target(name: "_TestSupport", path: "Tests/_TestSupport"),
        .testTarget(name: "GeoPolicyTests", dependencies: ["GeoPolicy", "GSLKit", "_TestSupport"]),
        .testTarget(name: "GSLKitTests", dependencies: ["GSLKit", "_TestSupport"]),
        .testTarget(name: "FenceLabSupportTests", dependencies: ["_FenceLabSupport", "_TestSupport"]),
        .testTarget(
            name: "DriveSimTests",
            dependencies: ["DriveSim", "GeoPolicy", "GSLKit", "_FenceLabSupport", "_TestSupport"]),
        .testTarget(
            name: "DeviceLogKitTests",
            dependencies: ["DeviceLogKit", "GeoPolicy", "_FenceLabSupport", "_TestSupport"]
        ),
        .testTarget(name: "ReportKitTests", dependencies: ["ReportKit", "_TestSupport"]),
        .testTarget(
            name: "FenceLabTests",
            dependencies: [
                "FenceLab", "DeviceLogKit", "DriveSim", "GeoPolicy", "GSLKit", "ReportKit", "_CommandLineKit",
                "_FenceLabSupport", "_TestSupport",
            ]
        ),
        .testTarget(
            name: "FenceLabSweepTests",
            dependencies: [
                "FenceLabSweep", "FenceLab", "DriveSim", "GeoPolicy", "GSLKit", "_FenceLabSupport", "_TestSupport",
            ]
        ),
        .testTarget(
            name: "FenceLabCalibrationTests",
            dependencies: [
                // FenceLab for its CSV export: generated recordings with known noise, read back as device logs.
                "FenceLabCalibration", "FenceLab", "DeviceLogKit", "DriveSim", "GeoPolicy", "GSLKit",
                "_FenceLabSupport", "_TestSupport",
            ]
        ),
        .testTarget(name: "CommandLineKitTests", dependencies: ["_CommandLineKit", "GeoPolicy", "_TestSupport"]),
        // The repository itself: layering of the imports, documents, paths, the public API page.
        .testTarget(
            name: "RepositoryTests",
            dependencies: ["DriveSim", "FenceLab", "FenceLabSweep", "GSLKit", "ReportKit", "_TestSupport"]),
        .testTarget(
            name: "CLITests", dependencies: ["FenceLabCLI", "FenceLab", "_CommandLineKit", "GeoPolicy", "_TestSupport"]
        ),
    ]
)
