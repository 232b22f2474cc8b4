import Foundation
import GSLKit
import GeoPolicy

/// Generated place sets (`places.generate`, docs/scenario-format.md "places"): a uniform or
/// clustered random set in a bounding box (seeded GSL mt19937), a grid of shops along streets,
/// and a mall (one large place holding small ones). Generated once per scenario, so every
/// replicate sees the same places; the same keys give the same set on every machine.
enum PlaceSetGenerator {
    /// Golden angle π(3 − √5), radians: the Vogel spiral's turn, which spreads the mall's shops
    /// evenly over its disc without a random draw.
    static let goldenAngle_rad = Double.pi * (3 - 5.0.squareRoot())

    static func decode(
        _ g: inout ObjectReader, rule: FenceRuleSpec
    ) throws(ScenarioError) -> (places: [NamedPlace], kind: String) {
        let kind = try g.choice("kind", ["uniform", "clustered", "grid", "mall"])
        var places: [NamedPlace]
        switch kind {
        case "uniform", "clustered":
            let count = try g.int("count", in: 1...PlaceSetSpec.maxPlaces)
            let seed = UInt64(try g.int("seed", in: 0...9_007_199_254_740_992))
            var b = try g.object("box")
            let south = try b.double("south")
            let west = try b.double("west")
            let north = try b.double("north")
            let east = try b.double("east")
            try b.check(south >= -90 && south < north, "south", "must be within -90...90 and < north", south)
            try b.check(north <= 90, "north", "must be ≤ 90", north)
            try b.check(west >= -180 && west < east, "west", "must be within -180...180 and < east", west)
            try b.check(east <= 180, "east", "must be ≤ 180", east)
            try b.finish()
            let radius = try g.double("radius_m")
            let (enter, exit) = try radii(&g)
            let prefix = try g.optionalString("namePrefix") ?? "place"
            var clusters = 0
            var sigma = 0.0
            if kind == "clustered" {
                clusters = try g.int("clusters", in: 1...count)
                sigma = try g.positive("clusterSigma_m")
            }
            let rng: RandomSource
            do { rng = try RandomSource(kind: .mt19937, seed: seed) } catch {
                throw .generator(scenario: g.file, reason: error.description)
            }
            let sinSouth = sin(south * EarthModel.radiansPerDegree)
            let sinNorth = sin(north * EarthModel.radiansPerDegree)
            // Uniform by area: sin(latitude) uniform between the box's, longitude uniform.
            func draw() -> Coordinate {
                let lat = asin(sinSouth + rng.uniform() * (sinNorth - sinSouth)) * EarthModel.degreesPerRadian
                let lon = west + rng.uniform() * (east - west)
                return (try? Coordinate(latitude: min(max(lat, south), north), longitude: lon))
                    ?? Coordinate(unitVector: SIMD3(1, 0, 0))
            }
            let frames = (0..<clusters).map { _ in LocalFrame(anchor: draw()) }
            places = (0..<count).map { i in
                let center: Coordinate
                if clusters > 0 {
                    let east_m = rng.gaussian(sigma: sigma)
                    let north_m = rng.gaussian(sigma: sigma)
                    center = frames[i % clusters].coordinate(east_m: east_m, north_m: north_m)
                } else {
                    center = draw()
                }
                return NamedPlace(
                    name: name(prefix, i, of: count), center: center, radius_m: radius, enter_m: enter, exit_m: exit)
            }
        case "grid":
            let origin = try ScenarioSpec.coordinate(try g.value("origin"), reader: g, at: g.keyPath("origin"))
            let bearing = try g.double("bearing_deg")
            let rows = try g.int("rows", in: 1...PlaceSetSpec.maxPlaces)
            let columns = try g.int("columns", in: 1...PlaceSetSpec.maxPlaces)
            guard rows * columns <= PlaceSetSpec.maxPlaces else {
                throw .invalidValue(
                    file: g.file, keyPath: g.keyPath("columns"),
                    requirement: "rows × columns must be at most \(PlaceSetSpec.maxPlaces)", got: "\(rows * columns)")
            }
            let spacing = try g.positive("spacing_m")
            let rowSpacing = try g.optionalDouble("rowSpacing_m") ?? spacing
            try g.check(rowSpacing > 0, "rowSpacing_m", "must be > 0", rowSpacing)
            let radius = try g.double("radius_m")
            let (enter, exit) = try radii(&g)
            let prefix = try g.optionalString("namePrefix") ?? "shop"
            let frame = LocalFrame(anchor: origin)
            let b = bearing * EarthModel.radiansPerDegree
            let along = SIMD2(sin(b), cos(b))
            let right = SIMD2(cos(b), -sin(b))
            places = []
            for i in 0..<rows {
                for j in 0..<columns {
                    let offset = along * (Double(j) * spacing) + right * (Double(i) * rowSpacing)
                    places.append(
                        NamedPlace(
                            name: name(prefix, i * columns + j, of: rows * columns), center: frame.coordinate(offset),
                            radius_m: radius, enter_m: enter, exit_m: exit))
                }
            }
        default:
            let center = try ScenarioSpec.coordinate(try g.value("center"), reader: g, at: g.keyPath("center"))
            let radius = try g.double("radius_m")
            let (enter, exit) = try radii(&g)
            let shops = try g.int("shops", in: 1...(PlaceSetSpec.maxPlaces - 1))
            let shopRadius = try g.double("shopRadius_m")
            try g.check(
                shopRadius.isFinite && shopRadius > 0 && shopRadius < radius, "shopRadius_m",
                "must be > 0 and < radius_m (\(formatNumber(radius)))", shopRadius)
            let shopEnter = try g.optionalDouble("shopEnter_m")
            let shopExit = try g.optionalDouble("shopExit_m")
            let frame = LocalFrame(anchor: center)
            places = [NamedPlace(name: "mall", center: center, radius_m: radius, enter_m: enter, exit_m: exit)]
            // Vogel's spiral: shop k at radius (R − r)·√((k + ½)/n), angle k·golden angle.
            for k in 0..<shops {
                let rho = (radius - shopRadius) * ((Double(k) + 0.5) / Double(shops)).squareRoot()
                let theta = Double(k) * goldenAngle_rad
                places.append(
                    NamedPlace(
                        name: name("shop", k, of: shops),
                        center: frame.coordinate(east_m: rho * sin(theta), north_m: rho * cos(theta)),
                        radius_m: shopRadius, enter_m: shopEnter, exit_m: shopExit))
            }
        }
        try g.finish()
        for (i, p) in places.enumerated() {
            if let (key, reason) = ScenarioSpec.placeProblem(p, rule: rule) {
                let shopKeys = ["radius_m": "shopRadius_m", "enter_m": "shopEnter_m", "exit_m": "shopExit_m"]
                let k = kind == "mall" && i > 0 ? shopKeys[key] ?? key : key == "name" ? "namePrefix" : key
                throw .invalidPlaceFile(file: g.file, line: 0, key: g.keyPath(k), reason: reason)
            }
        }
        return (places, kind)
    }

    /// Optional `enter_m` / `exit_m` for every generated place (checked with the places).
    static func radii(_ g: inout ObjectReader) throws(ScenarioError) -> (Double?, Double?) {
        (try g.optionalDouble("enter_m"), try g.optionalDouble("exit_m"))
    }

    /// `prefix-007`: the index from 1, zero-padded to the width of the count.
    static func name(_ prefix: String, _ index: Int, of count: Int) -> String {
        let digits = String(count).count
        let n = String(index + 1)
        return prefix + "-" + String(repeating: "0", count: digits - n.count) + n
    }
}
