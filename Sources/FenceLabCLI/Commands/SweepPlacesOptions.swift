import FenceLabSweep
import GeoPolicy
import _CommandLineKit

/// The `sweep` options of place-set scenarios (`places`): the monitoring axis and how the recall
/// constraint applies across places.
enum SweepPlacesOptions {
    static let options = [
        OptionDeclaration(
            "--budget", .text("LIST"),
            help: """
                Place sets: region budgets to cross with every setting, e.g. all,10,20,40
                (K >= 1: the K nearest places registered, re-chosen per --refresh; all:
                every place). Default: the scenario's own places.monitoring.
                """),
        OptionDeclaration(
            "--refresh", .text("LIST"),
            help: """
                Place sets: refresh radii R in metres (> 0) for every budget K, e.g.
                50,150,400: the set is chosen again at the first fix more than R from
                where it was chosen. Required with a budget K.
                """),
        OptionDeclaration(
            "--place-constraint", .choice(PlaceConstraint.allCases.map(\.rawValue)),
            default: PlaceConstraint.worst.rawValue,
            help: """
                Place sets: --min-recall holds for every place with true visits (worst,
                default) or for the weighted recall over places (weighted).
                """),
    ]

    /// The one-fence options a place-set sweep refuses when given.
    static let unsupported = [
        "--sampling", "--notify", "--input", "--kalman-q", "--cost", "--weight", "--max-exit-latency",
        "--checkpoint-after",
    ]

    static func parse(_ arguments: Arguments) throws -> SweepPlaces.Options {
        var options = SweepPlaces.Options()
        do {
            options.strategies = try SweepPlacesAxis.strategies(
                budget: arguments.option("--budget"), refresh: arguments.option("--refresh"))
        } catch {
            throw error.isUsage ? CLIError.usage("sweep: \(error)") : CLIError.badInput("sweep: \(error)")
        }
        options.constraint = PlaceConstraint(rawValue: arguments.option("--place-constraint")!)!
        options.unsupported = unsupported.filter { !arguments.options($0).isEmpty }
        for flag in ["--resume", "--csv-gzip"] where arguments.flag(flag) { options.unsupported.append(flag) }
        return options
    }
}
