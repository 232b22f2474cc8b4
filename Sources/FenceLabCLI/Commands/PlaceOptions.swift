import FenceLab
import GeoPolicy
import _CommandLineKit

/// The place options `replay` and `accept` share: `--places FILE` (instead of `--fence`) and
/// `--monitoring SPEC`, declared once so the two commands' `--help` and parsing agree.
enum PlaceOptions {
    static let declarations: [OptionDeclaration] = [
        OptionDeclaration(
            "--places", .text("FILE"),
            help: """
                Place file the app monitored, as a scenario's places.file: CSV
                name,lat,lon,radius_m[,enter_m,exit_m][,weight] or GeoJSON points
                (at most 100000 places); events name their place. Not with --fence.
                """),
        OptionDeclaration(
            "--monitoring", .text("SPEC"),
            help: """
                Which places the app registers (with --places): all (default) or
                nearest:K+refresh:R (the K nearest, chosen again R metres on).
                """),
    ]

    /// What a replay runs against.
    enum Target {
        case fence(Coordinate)
        case places(path: String, monitoring: MonitoringStrategy)
    }

    /// `--fence` or `--places` (exactly one), with `--monitoring` only beside `--places`.
    /// - Throws: `CLIError.usage` for neither, both, or `--monitoring` without `--places`;
    ///   `OptionError.badValue` naming `--fence` or `--monitoring` for a malformed value.
    static func target(_ arguments: Arguments, command: String) throws -> Target {
        let fence = arguments.option("--fence")
        let places = arguments.option("--places")
        let monitoring = arguments.option("--monitoring")
        switch (fence, places) {
        case (nil, nil): throw CLIError.usage("\(command): give --fence LAT,LON or --places FILE")
        case (_?, _?): throw CLIError.usage("\(command): --fence and --places exclude each other")
        case (let f?, nil):
            if monitoring != nil { throw CLIError.usage("\(command): --monitoring needs --places FILE") }
            return .fence(try ArgumentValue.fence(f))
        case (nil, let p?):
            return .places(path: p, monitoring: try strategy(monitoring))
        }
    }

    /// `--monitoring SPEC`, default `all`.
    static func strategy(_ text: String?) throws(OptionError) -> MonitoringStrategy {
        guard let text else { return .all }
        do { return try MonitoringStrategy.parse(text) } catch { throw .badValue("--monitoring: \(error)") }
    }

    /// Reads the place file.
    /// - Throws: `CLIError.badInput` naming the file, line and key.
    static func load(_ path: String, monitoring: MonitoringStrategy, rule: RuleSpec) throws -> ReplayPlaces {
        do { return try ReplayPlaces.load(path: path, rule: rule, monitoring: monitoring) } catch {
            throw CLIError.badInput("--places: \(error)")
        }
    }
}
