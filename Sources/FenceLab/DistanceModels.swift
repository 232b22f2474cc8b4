import GeoPolicy

/// A distance model name that FenceLab does not know.
package struct UnknownDistanceModel: Error, Sendable, Hashable, CustomStringConvertible {
    package let name: String
    package init(name: String) { self.name = name }
    package var description: String {
        "unknown distance model '\(name)'; known: \(DistanceModels.names.joined(separator: ", "))"
    }
}

/// The single place that maps a model name (CLI `--model`, fixture `model`) to a `DistanceModel`.
package enum DistanceModels {
    /// Names accepted by `distanceModel(named:)`.
    package static var names: [String] { ["sphere", "wgs84"] }
}

/// The distance model for `name`: `sphere` = `Haversine()` (R = 6 371 000 m), `wgs84` = `WGS84()` (Karney 2013).
/// - Throws: `UnknownDistanceModel` naming the refused name and the known ones.
package func distanceModel(named name: String) throws(UnknownDistanceModel) -> any DistanceModel {
    switch name {
    case "sphere": return Haversine()
    case "wgs84": return WGS84()
    default: throw UnknownDistanceModel(name: name)
    }
}
