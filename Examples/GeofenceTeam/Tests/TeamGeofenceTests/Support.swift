import FenceLab
import Foundation
import GeoPolicy
import TeamGeofence

/// Where FenceLab's scenario catalogue is: this file is
/// `<FenceLab>/Examples/GeofenceTeam/Tests/TeamGeofenceTests/Support.swift`.
/// A team with a URL dependency would keep its own copies of the scenarios it relies on.
enum Catalog {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func scenario(_ name: String) -> String {
        repository.appendingPathComponent("scenarios/\(name).json").path
    }
}

// Lets FenceLab's plots draw the team's circles instead of the scenario's 80/120 m.
extension DwellRule: PlottableFenceRule {
    public var plotRadii_m: (enter_m: Double, exit_m: Double) { (enter_m, exit_m) }
}
