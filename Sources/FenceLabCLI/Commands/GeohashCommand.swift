import FenceLab
import GeoPolicy
import _CommandLineKit

/// `fencelab geohash encode LAT LON [--precision N] | decode HASH | neighbors HASH`
enum GeohashCommand: Command {
    static let name = "geohash"
    static let summary = "Geohash encode, decode (with error bounds) and neighbours."
    static let arguments = "encode LAT LON | decode HASH | neighbors HASH"
    static let options = [
        OptionDeclaration("--precision", .text("N"), default: "12", help: "encode only: characters, 1...12")
    ]
    static let synopsis = """
        USAGE: fencelab geohash encode LAT LON [--precision N]
               fencelab geohash decode HASH
               fencelab geohash neighbors HASH
        """
    static let discussion = """
        encode     Prints the geohash of a coordinate (decimal degrees, latitude first).
        decode     Prints centre latitude, centre longitude, and the half-height and half-width
                   of the cell in degrees (the error bounds of the centre), one per line as key=value.
        neighbors  Prints the 8 neighbours as direction=hash (n ne e se s sw w nw). Columns wrap
                   across +-180 degrees; north of a top-row cell is the top-row cell on the
                   opposite meridian (over the pole).

        Hashes use the alphabet 0-9 b-z without a i l o (case-insensitive), 1...12 characters.
        """
    static let footer = "EXIT: 0 printed, 2 invalid coordinate, hash character or precision, 64 usage error."

    static func run(_ arguments: Arguments) throws -> ExitCode {
        var values = arguments.positionals
        guard !values.isEmpty else {
            throw CLIError.usage("geohash: expected encode, decode or neighbors; see `fencelab geohash --help`")
        }
        let action = values.removeFirst()
        if action != "encode", arguments.isGiven("--precision") {
            throw CLIError.usage("geohash \(action): --precision applies to encode only")
        }
        switch action {
        case "encode":
            guard values.count == 2 else {
                throw CLIError.usage("geohash encode: expected LAT LON, got \(values.count) value(s)")
            }
            let text = arguments.option("--precision")!
            guard let precision = Int(text) else { throw CLIError.badInput("--precision: not an integer: '\(text)'") }
            let lat = try ArgumentValue.double(values[0], name: "LAT")
            let lon = try ArgumentValue.double(values[1], name: "LON")
            let c: Coordinate
            do { c = try Coordinate(latitude: lat, longitude: lon) } catch {
                throw CLIError.badInput("LAT LON: \(error)")
            }
            do { print(try Geohash.encode(c, precision: precision)) } catch {
                throw CLIError.badInput("--precision: \(error)")
            }
        case "decode":
            let cell = try decodeArgument(values, action: action)
            print("latitude=\(cell.center.latitude)")
            print("longitude=\(cell.center.longitude)")
            print("latitude_error_deg=\(cell.latitudeError_deg)")
            print("longitude_error_deg=\(cell.longitudeError_deg)")
        case "neighbors":
            let cell = try decodeArgument(values, action: action)
            let names = ["n", "ne", "e", "se", "s", "sw", "w", "nw"]
            do {
                for (name, hash) in zip(names, try Geohash.neighbors(cell.hash)) { print("\(name)=\(hash)") }
            } catch { throw CLIError.badInput("HASH: \(error)") }
        default:
            throw CLIError.usage("geohash: unknown action '\(action)'; expected encode, decode or neighbors")
        }
        return .success
    }

    private static func decodeArgument(_ values: [String], action: String) throws -> GeohashCell {
        guard values.count == 1 else {
            throw CLIError.usage("geohash \(action): expected one HASH, got \(values.count) value(s)")
        }
        do { return try Geohash.decode(values[0]) } catch { throw CLIError.badInput("HASH: \(error)") }
    }
}
