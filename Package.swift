// swift-tools-version:6.0
// FenceLab: geofence and GPS-track logic tested at scale.
// No package dependencies: the toolchain plus GSL from the system (see README).
import PackageDescription

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
        .executable(name: "fencelab", targets: ["fencelab"]),
        .executable(name: "fencelab-bench", targets: ["fencelab-bench"]),
    ],
    targets: [
        // The engine an app ships: pure Swift, no GSL, no I/O.
        .target(name: "GeoPolicy"),
        // GSL as a system library; only GSLKit imports it.
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"]), .brew(["gsl"])]
        ),
        .target(name: "GSLKit", dependencies: ["CGSL"]),
        .target(name: "DriveSim", dependencies: ["GeoPolicy", "GSLKit"]),
        // Strict device-log readers (CSV, GPX, JSON Lines, NMEA): no harness, no GSL calls.
        .target(name: "DeviceLogKit", dependencies: ["GeoPolicy", "DriveSim"]),
        // glibc's mallopt, for the one allocator setting the harness makes; only FenceLab imports it.
        .systemLibrary(name: "CMalloc"),
        .target(name: "FenceLab", dependencies: ["GeoPolicy", "GSLKit", "DriveSim", "DeviceLogKit", "CMalloc"]),
        .executableTarget(name: "fencelab", dependencies: ["FenceLab", "GeoPolicy", "DeviceLogKit"]),

        // Performance-regression suite and its C reference kernels.
        .target(
            name: "CReference",
            dependencies: ["CGSL"],
            path: "Benchmarks/CReference",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .executableTarget(
            name: "fencelab-bench",
            dependencies: ["FenceLab", "GeoPolicy", "DriveSim", "GSLKit", "CReference"],
            path: "Benchmarks/fencelab-bench"
        ),

        // Shared test helpers (explicit tolerances, binary lookup).
        .target(name: "_TestSupport", path: "Tests/_TestSupport"),
        .testTarget(name: "GeoPolicyTests", dependencies: ["GeoPolicy", "GSLKit", "_TestSupport"]),
        .testTarget(name: "GSLKitTests", dependencies: ["GSLKit", "_TestSupport"]),
        .testTarget(name: "DriveSimTests", dependencies: ["DriveSim", "GeoPolicy", "GSLKit", "_TestSupport"]),
        .testTarget(name: "DeviceLogKitTests", dependencies: ["DeviceLogKit", "GeoPolicy", "_TestSupport"]),
        .testTarget(name: "FenceLabTests", dependencies: ["FenceLab", "DeviceLogKit", "DriveSim", "GeoPolicy", "GSLKit", "_TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["fencelab", "_TestSupport"]),
    ]
)
