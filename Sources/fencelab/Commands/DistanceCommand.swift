import FenceLab
import GeoPolicy

/// `fencelab distance LAT1 LON1 LAT2 LON2 [--model sphere|wgs84]`
enum DistanceCommand: Command {
    static let name = "distance"
    static let summary = "Distance in metres between two coordinates (sphere or WGS84)."
    static let help = """
        USAGE: fencelab distance LAT1 LON1 LAT2 LON2 [--model sphere|wgs84]

        Prints the distance in metres, unrounded (17 significant digits), between two
        points given in decimal degrees, latitude first. Coordinates are validated,
        never clamped: latitude -90...90, longitude -180...180, finite.

        OPTIONS:
          --model sphere   Haversine on a sphere of R = 6 371 000 m (default, as the seeds).
          --model wgs84    Ellipsoidal geodesic on WGS84 (Karney 2013).

        EXIT: 0 printed, 2 invalid coordinate, 64 usage error.
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        let modelName = try arguments.option("--model") ?? "sphere"
        // A usage error (unknown model) is reported before any value is parsed.
        let model: any DistanceModel
        do { model = try distanceModel(named: modelName) } catch {
            throw CLIError.usage("distance: --model: \(error)")
        }
        let values = try arguments.positionals()
        guard values.count == 4 else {
            throw CLIError.usage("distance: expected LAT1 LON1 LAT2 LON2, got \(values.count) value(s)")
        }
        let names = ["LAT1", "LON1", "LAT2", "LON2"]
        let v = try zip(values, names).map { try parseDouble($0, name: $1) }
        let a: Coordinate, b: Coordinate
        do {
            a = try Coordinate(latitude: v[0], longitude: v[1])
        } catch { throw CLIError.badInput("LAT1 LON1: \(error)") }
        do {
            b = try Coordinate(latitude: v[2], longitude: v[3])
        } catch { throw CLIError.badInput("LAT2 LON2: \(error)") }
        print(Format.metres(model.distance_m(a, b)))
        return .success
    }
}
