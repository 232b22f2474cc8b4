/// Seed 004's four speed colours.
public enum SpeedBand: String, Sendable, Hashable, CaseIterable, Codable {
    /// Green, < 50 km/h (city).
    case city
    /// Yellow, 50 km/h ≤ v < 90 km/h (country roads).
    case countryRoad
    /// Orange, 90 km/h ≤ v ≤ 110 km/h (motorway).
    case motorway
    /// Red, > 110 km/h.
    case fast

    /// Band limits in km/h (seed 004): a speed exactly at 50 or 90 goes to the faster band,
    /// exactly 110 stays orange ("> 110" is red).
    public enum Limit {
        public static let city_kmh: Double = 50
        public static let countryRoad_kmh: Double = 90
        public static let motorway_kmh: Double = 110
    }

    /// The band of a speed in m/s (finite, ≥ 0; 1 m/s = 3.6 km/h, so limits are compared after rounding of ×3.6).
    public init(speed_mps: Double) throws(TrackError) {
        guard speed_mps.isFinite, speed_mps >= 0 else { throw .invalidSpeed(index: 0, speed_mps: speed_mps) }
        try self.init(speed_kmh: speed_mps * 3.6)
    }

    /// The band of a speed in km/h (finite, ≥ 0).
    public init(speed_kmh kmh: Double) throws(TrackError) {
        guard kmh.isFinite, kmh >= 0 else { throw .invalidSpeed(index: 0, speed_mps: kmh / 3.6) }
        if kmh < Limit.city_kmh {
            self = .city
        } else if kmh < Limit.countryRoad_kmh {
            self = .countryRoad
        } else if kmh <= Limit.motorway_kmh {
            self = .motorway
        } else {
            self = .fast
        }
    }
}

/// A run of consecutive points in one speed band (one map polyline).
public struct SpeedSegment: Sendable, Hashable {
    public var band: SpeedBand
    /// Indices into the input points, inclusive. A segment after the first starts at the
    /// last point of the previous one (the one-point overlap of seed 004).
    public var indices: ClosedRange<Int>
    public var coordinates: [Coordinate]
}

/// Splits a track into speed-coloured segments as seed 004's `buildSegments`.
public enum SpeedSegments {
    /// - Parameters:
    ///   - coordinates: the points in order.
    ///   - speeds_mps: the speed at each point in m/s (finite, ≥ 0), same count.
    /// - Returns: segments; neighbouring segments share exactly one point. Empty input → no segments.
    /// - Throws: `TrackError.invalidSpeed` (with the index), `.invalidParameter` if the counts differ.
    public static func build(coordinates: [Coordinate], speeds_mps: [Double]) throws(TrackError) -> [SpeedSegment] {
        guard coordinates.count == speeds_mps.count else {
            throw .invalidParameter(
                name: "speeds_mps.count", value: Double(speeds_mps.count),
                expected: "equal to coordinates.count (\(coordinates.count))")
        }
        var segments: [SpeedSegment] = []
        var start = 0
        var current: SpeedBand = .city
        for (i, v) in speeds_mps.enumerated() {
            let band: SpeedBand
            do { band = try SpeedBand(speed_mps: v) } catch { throw .invalidSpeed(index: i, speed_mps: v) }
            if band != current && i > start {
                segments.append(
                    SpeedSegment(
                        band: current, indices: start...(i - 1),
                        coordinates: Array(coordinates[start...(i - 1)])))
                start = i - 1  // the seed's `currentCoords = [currentCoords.last!]`
            }
            current = band
        }
        if !coordinates.isEmpty {
            let end = coordinates.count - 1
            segments.append(
                SpeedSegment(band: current, indices: start...end, coordinates: Array(coordinates[start...end])))
        }
        return segments
    }
}
