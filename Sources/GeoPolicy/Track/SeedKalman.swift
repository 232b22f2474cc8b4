/// Seed 004's scalar "Kalman filter without IMU", reproduced faithfully as a comparison baseline.
///
/// **Baseline, not for production.** One scalar variance, the gain applied to raw
/// latitude/longitude degrees, no velocity state:
/// ```
/// predictedVariance += dt · speedVariance
/// K = predictedVariance / (predictedVariance + hAcc²)
/// lat = prevLat + K (lat − prevLat);  lon = prevLon + K (lon − prevLon)
/// predictedVariance = (1 − K) · predictedVariance;  output accuracy = √predictedVariance
/// ```
/// Known failures, measured by the harness: with no velocity state it lags behind a moving
/// car (the estimate trails the truth by roughly speed·(1−K)/K); the gain on degrees mixes
/// metres and degrees and ignores that a degree of longitude shrinks with cos(latitude);
/// and averaging 179.99° with −179.99° gives a point near 0° — the other side of the Earth.
/// Near a pole, where longitude swings by up to 180° between fixes, it cuts across.
///
/// Reproduction notes: the article's snippet does not show where `lastFilteredLocation`
/// is assigned; as the prose implies, the returned location becomes the next
/// `previous`. `predictedVariance` starts at 0 (its unshown initial value). The
/// first fix is returned unchanged. Only the input validation is added (same reasons as
/// `KalmanFilter`), so both run on the same fix stream.
public struct SeedKalman: Sendable, Hashable {
    /// The seed's `speedVariance`, in m²/s (variance added per second); finite and ≥ 0.
    public let speedVariance_m2ps: Double
    /// The seed's `predictedVariance`, in m².
    public private(set) var predictedVariance_m2: Double = 0
    /// The last output (the seed's `lastFilteredLocation`).
    public private(set) var last: SeedKalman.Output?

    /// One output of the seed filter (the seed's returned `CLLocation`).
    public struct Output: Sendable, Hashable {
        public var timestamp_s: Double
        public var position: Coordinate
        /// `sqrt(predictedVariance)`, in metres (the first fix's own accuracy for the first output).
        public var horizontalAccuracy_m: Double
    }

    /// - Parameter speedVariance_m2ps: the seed's `speedVariance` (not given in the article);
    ///   default 4 m²/s. Finite and ≥ 0.
    /// - Throws: `TrackError.invalidParameter`.
    public init(speedVariance_m2ps: Double = 4) throws(TrackError) {
        guard speedVariance_m2ps.isFinite, speedVariance_m2ps >= 0 else {
            throw .invalidParameter(name: "speedVariance_m2ps", value: speedVariance_m2ps, expected: "finite and >= 0")
        }
        self.speedVariance_m2ps = speedVariance_m2ps
    }

    /// The seed's `processLocation`.
    /// - Throws: `TrackRejection` for an invalid timestamp, coordinate or accuracy, or a
    ///   non-increasing timestamp; the filter is then unchanged.
    @discardableResult
    public mutating func process(_ fix: Fix) throws(TrackRejection) -> Output {
        guard fix.timestamp_s.isFinite else { throw .invalidTimestamp(fix.timestamp_s) }
        let location: Coordinate
        do { location = try fix.coordinate() } catch { throw .invalidCoordinate(error) }
        let acc = fix.horizontalAccuracy_m
        guard acc.isFinite, acc > 0 else { throw .invalidAccuracy(acc) }
        guard let previous = last else {
            let out = Output(timestamp_s: fix.timestamp_s, position: location, horizontalAccuracy_m: acc)
            last = out
            return out
        }
        guard fix.timestamp_s > previous.timestamp_s else {
            throw .nonIncreasingTimestamp(previous_s: previous.timestamp_s, timestamp_s: fix.timestamp_s)
        }
        let dt = fix.timestamp_s - previous.timestamp_s
        let processNoise = dt * speedVariance_m2ps
        predictedVariance_m2 += processNoise
        let measurementVariance = acc * acc
        let kalmanGain = predictedVariance_m2 / (predictedVariance_m2 + measurementVariance)
        let lat = previous.position.latitude + kalmanGain * (location.latitude - previous.position.latitude)
        let lon = previous.position.longitude + kalmanGain * (location.longitude - previous.position.longitude)
        predictedVariance_m2 = (1 - kalmanGain) * predictedVariance_m2
        // A convex combination of valid coordinates is valid.
        let out = Output(
            timestamp_s: fix.timestamp_s, position: Coordinate(computedLatitude: lat, longitude: lon),
            horizontalAccuracy_m: predictedVariance_m2.squareRoot())
        last = out
        return out
    }
}
