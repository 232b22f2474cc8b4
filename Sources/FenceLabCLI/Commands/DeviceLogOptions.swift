import DeviceLogKit
import _CommandLineKit

/// The import options `replay`, `calibrate` and `accept` share (docs/device-logs.md, "Ingest
/// policy"): declared here once, so the three commands' `--help` and parsing cannot drift apart.
enum DeviceLogOptions {
    static let declarations: [OptionDeclaration] = [
        OptionDeclaration(
            "--format", .choice(DeviceLogFormat.allCases.map(\.rawValue)),
            help: """
                Format of every log (csv, gpx, jsonl, nmea, gnsslogger, owntracks,
                google-records, geojson). Default: the extension
                (.csv, .gpx, .jsonl, .nmea), else the file's content.
                """),
        OptionDeclaration(
            "--assume-accuracy", .number("M", .positive),
            help: """
                Horizontal accuracy in metres of every GPX point or NMEA epoch that
                carries none (no accuracy extension, HDOP, PDOP or GST); without it
                such a log is refused. Reported as an assumption.
                """),
        OptionDeclaration(
            "--date", .text("YYYY-MM-DD"),
            help: """
                UTC date of NMEA epochs before the first RMC date (GGA-only
                streams); without it such a log is refused. Reported as an assumption.
                """),
        OptionDeclaration(
            "--columns", .text("time=X[:FMT],lat=Y,lon=Z[,accuracy=W,...]"),
            help: """
                Read any CSV by naming its columns: time (Unix s or ISO-8601 with
                zone; time=X:iso, time=X:epoch-s or time=X:epoch-ms names one
                format), lat, lon, and optionally accuracy (m), speed (m/s), course
                (deg), event (enter/exit), place (the event's place). Other
                columns are ignored and listed.
                Without accuracy= every fix needs --assume-accuracy.
                """),
        OptionDeclaration(
            "--provider", .text("LIST"),
            help: """
                Keep only the fixes of these providers, comma-separated (gps, fused,
                network, nmea, other; GnssLogger and Google Records). Default: every
                provider loads; the others are skipped and counted per provider.
                """),
        OptionDeclaration(
            "--strict", .flag,
            help: """
                Refuse a damaged NMEA line (bad checksum, truncated sentence, not a
                sentence) instead of skipping and counting it.
                """),
    ]

    /// The format and read options the command line names.
    /// - Throws: `OptionError.badValue` naming `--date` when it is not a calendar date.
    static func parse(_ arguments: Arguments) throws(OptionError) -> (DeviceLogFormat?, DeviceLogReadOptions) {
        let format = arguments.option("--format").flatMap(DeviceLogFormat.init(rawValue:))
        var options = DeviceLogReadOptions()
        options.assumedAccuracy_m = arguments.number("--assume-accuracy")
        options.strict = arguments.flag("--strict")
        if let text = arguments.option("--date") {
            guard let days = DeviceLogReadOptions.date(text) else {
                throw .badValue("--date: '\(DeviceLogLexical.shown(text))' is not a calendar date YYYY-MM-DD")
            }
            options.assumedDate_days = days
        }
        if let text = arguments.option("--columns") {
            switch DeviceLogColumns.parse(text) {
            case .success(let map): options.columns = map
            case .failure(let problem): throw .badValue("--columns: \(problem)")
            }
        }
        if let text = arguments.option("--provider") {
            var selected: Set<DeviceLogProvider> = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let provider = DeviceLogProvider(rawValue: String(name)) else {
                    let names = DeviceLogProvider.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .badValue(
                        "--provider: '\(DeviceLogLexical.shown(name))' is not a provider (\(names))")
                }
                selected.insert(provider)
            }
            options.providers = selected
        }
        return (format, options)
    }
}
