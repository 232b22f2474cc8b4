/// Why a geohash operation was refused.
public enum GeohashError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Precision outside 1…12 characters.
    case invalidPrecision(Int)
    /// A character outside the geohash alphabet (`0-9`, `b-z` without `a i l o`); `position` is 1-based.
    case invalidCharacter(hash: String, character: Character, position: Int)
    /// The radius of a covering circle is not finite and ≥ 0 m.
    case invalidRadius(Double)
    /// Covering the circle would need more candidate cells than `limit`.
    case tooManyCells(candidates: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidPrecision(let p): return "geohash precision must be within 1...12, got \(p)"
        case .invalidCharacter(let hash, let ch, let pos):
            return
                "geohash '\(hash)' has invalid character '\(ch)' at position \(pos) (alphabet 0-9 b-z without a i l o)"
        case .invalidRadius(let r): return "radius must be finite and >= 0 m, got \(r)"
        case .tooManyCells(let n, let limit): return "covering needs \(n) candidate cells, more than the limit \(limit)"
        }
    }
}

/// The eight neighbour directions of a geohash cell.
public enum GeohashDirection: String, Sendable, Hashable, CaseIterable, Codable {
    case north, northEast, east, southEast, south, southWest, west, northWest

    /// (row step, column step): +1 row = north, +1 column = east.
    var step: (lat: Int, lon: Int) {
        switch self {
        case .north: return (1, 0)
        case .northEast: return (1, 1)
        case .east: return (0, 1)
        case .southEast: return (-1, 1)
        case .south: return (-1, 0)
        case .southWest: return (-1, -1)
        case .west: return (0, -1)
        case .northWest: return (1, -1)
        }
    }
}

/// A decoded geohash cell: its bounds, centre and half-sizes (the error bounds of the centre).
public struct GeohashCell: Sendable, Hashable {
    public let hash: String
    public let latitudeMin: Double, latitudeMax: Double
    public let longitudeMin: Double, longitudeMax: Double
    /// Centre of the cell.
    public var center: Coordinate {
        Coordinate(computedLatitude: 0.5 * (latitudeMin + latitudeMax), longitude: 0.5 * (longitudeMin + longitudeMax))
    }
    /// Half the cell height in degrees: the true latitude is within centre ± this.
    public var latitudeError_deg: Double { 0.5 * (latitudeMax - latitudeMin) }
    /// Half the cell width in degrees: the true longitude is within centre ± this.
    public var longitudeError_deg: Double { 0.5 * (longitudeMax - longitudeMin) }
}

/// Geohash (G. Niemeyer 2008, geohash.org): base-32 strings of interleaved longitude/latitude bisection bits.
///
/// Bit 1 of a hash halves the longitude range, bit 2 the latitude range, and so on; each
/// character carries 5 bits of the alphabet `0123456789bcdefghjkmnpqrstuvwxyz`. A value on a
/// bisection boundary goes to the upper half, so (90, 180) is `zzzzzzzzzzzz`.
///
/// Neighbours work on the integer (row, column) grid of a precision: columns wrap across
/// ±180° (`xzrbx` east → `8p208`). Across a pole, "north of a top-row cell" is the top-row
/// cell on the opposite meridian (column + half the columns): the cell you enter when you
/// keep going north over the pole. Diagonals move east/west first, then north/south.
public enum Geohash {
    /// The base-32 alphabet.
    public static let alphabet: [Character] = Array("0123456789bcdefghjkmnpqrstuvwxyz")
    /// Valid precisions (characters).
    public static let precisionRange: ClosedRange<Int> = 1...12

    /// The hash of `coordinate` with `precision` characters (1…12).
    /// - Throws: `GeohashError.invalidPrecision`.
    public static func encode(_ coordinate: Coordinate, precision: Int = 12) throws(GeohashError) -> String {
        guard precisionRange.contains(precision) else { throw .invalidPrecision(precision) }
        var latLo = -90.0
        var latHi = 90.0
        var lonLo = -180.0
        var lonHi = 180.0
        var isLon = true
        // Built in place: up to 12 ASCII bytes fit Swift's small-string form (no heap allocation).
        return makeASCII(count: precision) { _ in
            var value = 0
            for _ in 0..<5 {
                value <<= 1
                if isLon {
                    let mid = 0.5 * (lonLo + lonHi)
                    if coordinate.longitude >= mid {
                        value |= 1
                        lonLo = mid
                    } else {
                        lonHi = mid
                    }
                } else {
                    let mid = 0.5 * (latLo + latHi)
                    if coordinate.latitude >= mid {
                        value |= 1
                        latLo = mid
                    } else {
                        latHi = mid
                    }
                }
                isLon.toggle()
            }
            return alphabetBytes[value]
        }
    }

    /// The cell of `hash` (1…12 characters, case-insensitive).
    /// - Throws: `GeohashError.invalidPrecision` or `.invalidCharacter`.
    public static func decode(_ hash: String) throws(GeohashError) -> GeohashCell {
        let g = try grid(hash)
        return cell(g)
    }

    /// The neighbour of `hash` in `direction`, same precision.
    public static func neighbor(_ hash: String, _ direction: GeohashDirection) throws(GeohashError) -> String {
        let g = try grid(hash)
        return string(g.moved(direction))
    }

    /// All eight neighbours, in `GeohashDirection.allCases` order (N, NE, E, SE, S, SW, W, NW).
    public static func neighbors(_ hash: String) throws(GeohashError) -> [String] {
        let g = try grid(hash)
        return GeohashDirection.allCases.map { string(g.moved($0)) }
    }

    /// The cells of `precision` that intersect the spherical cap of `radius_m` around `center`
    /// (the "fog of war" cells a circle uncovers; seed 004 uses precision 5–7).
    ///
    /// A candidate cell is kept when its exact minimum great-circle distance to the centre is
    /// ≤ radius (sphere R = `EarthModel.sphereRadius_m`): along the meridian when the centre's
    /// longitude is inside the cell, otherwise to the nearer point of the two meridian edges.
    /// - Throws: `.invalidPrecision`, `.invalidRadius`, `.tooManyCells` (more candidates than `maxCells`).
    public static func cells(
        coveringCircle center: Coordinate, radius_m: Double, precision: Int,
        maxCells: Int = 1_000_000
    ) throws(GeohashError) -> Set<String> {
        guard precisionRange.contains(precision) else { throw .invalidPrecision(precision) }
        guard radius_m.isFinite, radius_m >= 0 else { throw .invalidRadius(radius_m) }
        let (latBits, lonBits) = bits(precision)
        let rows = 1 << latBits
        let cols = 1 << lonBits
        let cellH = 180.0 / Double(rows)
        let cellW = 360.0 / Double(cols)
        let delta = radius_m / EarthModel.sphereRadius_m
        let deltaDeg = delta * EarthModel.degreesPerRadian
        let phi = center.latitude * EarthModel.radiansPerDegree
        let latLo = center.latitude - deltaDeg
        let latHi = center.latitude + deltaDeg
        let rowLo = latLo <= -90 ? 0 : Int(((latLo + 90) / cellH).rounded(.down))
        let rowHi = latHi >= 90 ? rows - 1 : min(rows - 1, Int(((latHi + 90) / cellH).rounded(.down)))
        var colLo = 0
        var colHi = cols - 1
        let ratio = _sin(min(delta, Double.pi)) / _cos(phi)
        if latLo > -90, latHi < 90, delta < Double.pi / 2, ratio < 1 {
            let dLon = _asin(ratio) * EarthModel.degreesPerRadian
            colLo = Int(((center.longitude - dLon + 180) / cellW).rounded(.down))
            colHi = Int(((center.longitude + dLon + 180) / cellW).rounded(.down))
            if colHi - colLo + 1 >= cols {
                colLo = 0
                colHi = cols - 1
            }
        }
        let candidates = (rowHi - rowLo + 1) * (colHi - colLo + 1)
        guard candidates <= maxCells else { throw .tooManyCells(candidates: candidates, limit: maxCells) }
        var out = Set<String>()
        for row in rowLo...rowHi {
            for c in colLo...colHi {
                let col = ((c % cols) + cols) % cols
                let g = Grid(row: row, col: col, latBits: latBits, lonBits: lonBits)
                if minimumDistance_rad(center, cell(g)) <= delta { out.insert(string(g)) }
            }
        }
        return out
    }

    // MARK: - Grid

    struct Grid {
        var row: Int, col: Int
        let latBits: Int, lonBits: Int

        func moved(_ d: GeohashDirection) -> Grid {
            let rows = 1 << latBits
            let cols = 1 << lonBits
            var g = self
            g.col = (((g.col + d.step.lon) % cols) + cols) % cols
            let r = g.row + d.step.lat
            if r >= rows || r < 0 {
                // Over the pole: same row, opposite meridian.
                g.col = (g.col + cols / 2) % cols
            } else {
                g.row = r
            }
            return g
        }
    }

    static func bits(_ precision: Int) -> (lat: Int, lon: Int) {
        let total = 5 * precision
        return (total / 2, (total + 1) / 2)
    }

    static let decodeTable: [Int8] = {
        var t = [Int8](repeating: -1, count: 128)
        for (i, ch) in alphabet.enumerated() {
            t[Int(ch.asciiValue!)] = Int8(i)
            t[Int(Character(ch.uppercased()).asciiValue!)] = Int8(i)
        }
        return t
    }()

    /// The alphabet as ASCII bytes.
    static let alphabetBytes: [UInt8] = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)

    /// A string of `count` ASCII bytes produced in order by `byte(i)`, written in place
    /// (≤ 15 bytes: Swift's small-string form, no heap allocation).
    @inline(__always)
    static func makeASCII(count: Int, _ byte: (Int) -> UInt8) -> String {
        String(unsafeUninitializedCapacity: count) { buffer in
            for i in 0..<count { buffer[i] = byte(i) }
            return count
        }
    }

    static func grid(_ hash: String) throws(GeohashError) -> Grid {
        // Fast path over the UTF-8 bytes; anything unusual (non-ASCII, invalid, wrong length)
        // goes to `gridChecked`, which names the problem by character.
        let n = hash.utf8.count
        guard precisionRange.contains(n) else { return try gridChecked(hash) }
        var row = 0
        var col = 0
        var isLon = true
        for a in hash.utf8 {
            guard a < 128, decodeTable[Int(a)] >= 0 else { return try gridChecked(hash) }
            let v = Int(decodeTable[Int(a)])
            for b in stride(from: 4, through: 0, by: -1) {
                let bit = (v >> b) & 1
                if isLon { col = (col << 1) | bit } else { row = (row << 1) | bit }
                isLon.toggle()
            }
        }
        let (latBits, lonBits) = bits(n)
        return Grid(row: row, col: col, latBits: latBits, lonBits: lonBits)
    }

    /// `grid` by characters, with the precise error for a bad hash.
    static func gridChecked(_ hash: String) throws(GeohashError) -> Grid {
        let chars = Array(hash)
        guard precisionRange.contains(chars.count) else { throw .invalidPrecision(chars.count) }
        var row = 0
        var col = 0
        var isLon = true
        for (i, ch) in chars.enumerated() {
            guard let a = ch.asciiValue, a < 128, decodeTable[Int(a)] >= 0 else {
                throw .invalidCharacter(hash: hash, character: ch, position: i + 1)
            }
            let v = Int(decodeTable[Int(a)])
            for b in stride(from: 4, through: 0, by: -1) {
                let bit = (v >> b) & 1
                if isLon { col = (col << 1) | bit } else { row = (row << 1) | bit }
                isLon.toggle()
            }
        }
        let (latBits, lonBits) = bits(chars.count)
        return Grid(row: row, col: col, latBits: latBits, lonBits: lonBits)
    }

    static func string(_ g: Grid) -> String {
        let total = g.latBits + g.lonBits
        var lonBit = g.lonBits - 1
        var latBit = g.latBits - 1
        var i = 0
        return makeASCII(count: total / 5) { _ in
            var value = 0
            for _ in 0..<5 {
                let bit: Int
                if i % 2 == 0 {
                    bit = (g.col >> lonBit) & 1
                    lonBit -= 1
                } else {
                    bit = (g.row >> latBit) & 1
                    latBit -= 1
                }
                value = (value << 1) | bit
                i += 1
            }
            return alphabetBytes[value]
        }
    }

    static func cell(_ g: Grid) -> GeohashCell {
        let h = 180.0 / Double(1 << g.latBits)
        let w = 360.0 / Double(1 << g.lonBits)
        return GeohashCell(
            hash: string(g),
            latitudeMin: -90 + Double(g.row) * h, latitudeMax: -90 + Double(g.row + 1) * h,
            longitudeMin: -180 + Double(g.col) * w, longitudeMax: -180 + Double(g.col + 1) * w)
    }

    /// Exact minimum central angle (radians) from `p` to the lat/lon rectangle of `cell`.
    static func minimumDistance_rad(_ p: Coordinate, _ cell: GeohashCell) -> Double {
        // Longitude of p relative to the cell's west edge, in [0, 360).
        var rel = (p.longitude - cell.longitudeMin).truncatingRemainder(dividingBy: 360)
        if rel < 0 { rel += 360 }
        if rel <= cell.longitudeMax - cell.longitudeMin {
            if p.latitude >= cell.latitudeMin && p.latitude <= cell.latitudeMax { return 0 }
            let dLat = p.latitude < cell.latitudeMin ? cell.latitudeMin - p.latitude : p.latitude - cell.latitudeMax
            return dLat * EarthModel.radiansPerDegree
        }
        func meridian(_ lonEdge: Double) -> Double {
            let k = EarthModel.radiansPerDegree
            let phi = p.latitude * k
            let dl = (p.longitude - lonEdge) * k
            let foot = _atan2(_sin(phi), _cos(phi) * _cos(dl)) * EarthModel.degreesPerRadian
            var best = Double.infinity
            for lat in [cell.latitudeMin, cell.latitudeMax, min(max(foot, cell.latitudeMin), cell.latitudeMax)] {
                best = min(
                    best,
                    Haversine.centralAngle_rad(
                        latitude1: p.latitude, longitude1: p.longitude,
                        latitude2: lat, longitude2: lonEdge))
            }
            return best
        }
        return min(meridian(cell.longitudeMin), meridian(cell.longitudeMax))
    }
}
