// swift-tools-version:6.0
// A team's own package that tests its geofence rule with FenceLab (by path, from this repository).
// In your own repository use a URL dependency instead:
//   .package(url: "https://example.com/you/FenceLab.git", branch: "main")  → package: "FenceLab"
import Foundation
import PackageDescription

// A path dependency's package identity is the last component of the path, i.e. the name of
// the folder FenceLab is checked out in (`FenceLab`, `main`, a worktree name...). Compute it,
// so the example builds in any checkout.
let fenceLabPath = "../.."
let fenceLabIdentity = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .appendingPathComponent(fenceLabPath)
    .standardizedFileURL
    .lastPathComponent

let package = Package(
    name: "GeofenceTeam",
    // At least FenceLab's own floor (its Package.swift says why).
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TeamGeofence", targets: ["TeamGeofence"]),
        .executable(name: "team-bench", targets: ["team-bench"]),
    ],
    dependencies: [
        .package(path: fenceLabPath)
    ],
    targets: [
        // The rule the team's app ships: depends on GeoPolicy only (pure Swift, no GSL, no I/O).
        .target(
            name: "TeamGeofence",
            dependencies: [.product(name: "GeoPolicy", package: fenceLabIdentity)]
        ),
        // The team's benchmark rows, gated in CI by instruction count (bench.sh): FenceLab's
        // benchmark kit only (GeoPolicy, GSL, the generator; no harness), so its release build is small.
        .executableTarget(
            name: "team-bench",
            dependencies: [
                "TeamGeofence",
                .product(name: "FenceLabBench", package: fenceLabIdentity),
                .product(name: "GeoPolicy", package: fenceLabIdentity),
            ]
        ),
        // The team's tests: run the rule through FenceLab's noisy scenarios and assert on flutter.
        .testTarget(
            name: "TeamGeofenceTests",
            dependencies: [
                "TeamGeofence",
                .product(name: "FenceLab", package: fenceLabIdentity),
                .product(name: "GeoPolicy", package: fenceLabIdentity),
            ]
        ),
    ]
)
