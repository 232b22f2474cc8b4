/// Why `Thinning` dropped a fix.
public enum ThinningReason: Sendable, Hashable, CustomStringConvertible {
    /// Invalid coordinate, accuracy or timestamp (see `TrackRejection`).
    case invalid(TrackRejection)
    /// Reported accuracy above the limit (seed 004: hAcc > 50 m).
    case inaccurate(accuracy_m: Double)
    /// Closer than the distance filter to the last kept fix (seed 004: 10 m).
    case tooClose(distance_m: Double)

    public var description: String {
        switch self {
        case .invalid(let r): return "invalid: \(r)"
        case .inaccurate(let a): return "accuracy \(a) m above the limit"
        case .tooClose(let d): return "only \(d) m from the last kept fix"
        }
    }
}

/// The result of thinning: kept fixes and the reason for every dropped one.
public struct ThinningResult: Sendable, Hashable {
    /// Indices of the kept fixes in the input, in order.
    public var keptIndices: [Int]
    /// Every dropped fix with its index and reason.
    public var dropped: [(index: Int, reason: ThinningReason)] {
        droppedIndices.indices.map { (droppedIndices[$0], reasons[$0]) }
    }
    public var droppedIndices: [Int]
    public var reasons: [ThinningReason]
}

/// Seed 004's input filtering: an accuracy gate (drop hAcc > 50 m) and iOS-style
/// `distanceFilter` (drop a fix closer than 10 m to the last kept one).
public struct Thinning: Sendable {
    /// Fixes with accuracy above this are dropped, in metres (finite, > 0). Equal is kept.
    public let maxAccuracy_m: Double
    /// Fixes closer than this to the last kept fix are dropped, in metres (finite, ≥ 0). Equal is kept.
    public let distanceFilter_m: Double
    /// The distance model (same API as production, seed 000).
    public let model: any DistanceModel

    public init(
        maxAccuracy_m: Double = 50, distanceFilter_m: Double = 10,
        model: any DistanceModel = Haversine()
    ) throws(TrackError) {
        guard maxAccuracy_m.isFinite, maxAccuracy_m > 0 else {
            throw .invalidParameter(name: "maxAccuracy_m", value: maxAccuracy_m, expected: "finite and > 0")
        }
        guard distanceFilter_m.isFinite, distanceFilter_m >= 0 else {
            throw .invalidParameter(name: "distanceFilter_m", value: distanceFilter_m, expected: "finite and >= 0")
        }
        self.maxAccuracy_m = maxAccuracy_m
        self.distanceFilter_m = distanceFilter_m
        self.model = model
    }

    /// Thins `fixes` in order.
    public func thin(_ fixes: [Fix]) -> ThinningResult {
        var kept: [Int] = []
        var dropped: [Int] = []
        var reasons: [ThinningReason] = []
        var last: Coordinate?
        for (i, fix) in fixes.enumerated() {
            let c: Coordinate
            do { c = try fix.coordinate() } catch {
                dropped.append(i)
                reasons.append(.invalid(.invalidCoordinate(error)))
                continue
            }
            let acc = fix.horizontalAccuracy_m
            guard acc.isFinite, acc >= 0 else {
                dropped.append(i)
                reasons.append(.invalid(.invalidAccuracy(acc)))
                continue
            }
            guard acc <= maxAccuracy_m else {
                dropped.append(i)
                reasons.append(.inaccurate(accuracy_m: acc))
                continue
            }
            if let l = last {
                let d = model.distance_m(l, c)
                guard d >= distanceFilter_m else {
                    dropped.append(i)
                    reasons.append(.tooClose(distance_m: d))
                    continue
                }
            }
            kept.append(i)
            last = c
        }
        return ThinningResult(keptIndices: kept, droppedIndices: dropped, reasons: reasons)
    }
}
