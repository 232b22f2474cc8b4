import FenceLab
import GeoPolicy
import ReportKit
import _CommandLineKit

/// `fencelab distance LAT1 LON1 LAT2 LON2 [--model sphere|wgs84]`
enum DistanceCommand: Command {
    static let name = "distance"
    static let summary = "Distance in metres between two coordinates (sphere or WGS84)."
    static let arguments = "LAT1 LON1 LAT2 LON2"
    static let options = [
        OptionDeclaration(
            "--model", .choice(DistanceModels.names), default: "sphere",
            help: """
                sphere: haversine on a sphere of R = 6 371 000 m (as the seeds);
                wgs84: ellipsoidal geodesic on WGS84 (Karney 2013)
                """)
    ]
    static let discussion = """
        Prints the distance in metres, unrounded (17 significant digits), between two
        points given in decimal degrees, latitude first. Coordinates are validated,
        never clamped: latitude -90...90, longitude -180...180, finite.
        """
    static let footer = "EXIT: 0 printed, 2 invalid coordinate, 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        // An unknown model is a usage error, refused by the parser before any value is read.
        let model = try distanceModel(named: arguments.option("--model")!)
        let values = arguments.positionals
        guard values.count == 4 else {
            throw CLIError.usage("distance: expected LAT1 LON1 LAT2 LON2, got \(values.count) value(s)")
        }
        let names = ["LAT1", "LON1", "LAT2", "LON2"]
        let v = try zip(values, names).map { v, n throws(OptionError) in try ArgumentValue.double(v, name: n) }
        let a: Coordinate
        let b: Coordinate
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
