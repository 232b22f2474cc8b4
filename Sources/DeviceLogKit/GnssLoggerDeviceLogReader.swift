/// Reads Android GnssLogger logs (`gnss_log_*.txt`): every `Fix` record is a fix, with the
/// platform's own accuracy and its provider (GPS, FLP, NLP) kept per fix.
///
/// A `# Fix,…` header line names the columns (`LatitudeDegrees`/`Latitude`,
/// `LongitudeDegrees`/`Longitude`, `AccuracyMeters`/`Accuracy`, `UnixTimeMillis`/`(UTC)TimeInMs`,
/// `SpeedMps`/`Speed`, `BearingDegrees`/`Bearing`); without one the GnssLogger v3 layout
/// `Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,
/// BearingDegrees,UnixTimeMillis,…` is assumed. Other `#` lines are comments; `Raw`, `Status`,
/// sensor and other records are not fixes; wrapped `NMEA,<sentence>,<unix ms>` lines repeat the
/// receiver's sentences the Fix records already carry: all three are skipped and counted. A Fix
/// without accuracy takes `--assume-accuracy` (counted), else the file is refused naming it; a
/// malformed number names the record's column.
enum GnssLoggerDeviceLogReader {
    /// Where the fields of a Fix record are (0-based, the record name at 0).
    struct Layout {
        var provider = 1, latitude = 2, longitude = 3, speed: Int? = 5, accuracy = 6, bearing: Int? = 7, time = 8
        var names = [
            1: "Provider", 2: "LatitudeDegrees", 3: "LongitudeDegrees", 5: "SpeedMps", 6: "AccuracyMeters",
            7: "BearingDegrees", 8: "UnixTimeMillis",
        ]
        var count: Int { max(provider, latitude, longitude, accuracy, time, speed ?? 0, bearing ?? 0) + 1 }

        /// The layout a `# Fix,…` header names; nil when it lacks latitude, longitude or time.
        init?(header fields: [Substring]) {
            func index(_ names: String...) -> Int? { fields.firstIndex { names.contains(String($0)) } }
            guard let lat = index("LatitudeDegrees", "Latitude"), let lon = index("LongitudeDegrees", "Longitude"),
                let time = index("UnixTimeMillis", "(UTC)TimeInMs", "UtcTimeMillis")
            else { return nil }
            latitude = lat
            longitude = lon
            self.time = time
            provider = index("Provider") ?? 1
            accuracy = index("AccuracyMeters", "Accuracy") ?? -1
            speed = index("SpeedMps", "Speed")
            bearing = index("BearingDegrees", "Bearing")
            names = [:]
            for (i, f) in fields.enumerated() { names[i] = String(f) }
        }

        init() {}
    }

    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        var layout = Layout()
        var lastLine = 0
        var sawLine = false
        while let line = try lines.next({ (bytes, line) throws(DeviceLogProblemAtLine) -> Int in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw DeviceLogProblemAtLine(line: line, problem: .invalidUTF8)
            }
            let trimmed = text.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty { return line }
            sawLine = true
            if trimmed.hasPrefix("#") {
                let header = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
                if header.hasPrefix("Fix,") {
                    let fields = header.split(separator: ",", omittingEmptySubsequences: false).map {
                        $0.trimmingSuffix { $0 == " " || $0 == "\t" }
                    }
                    guard let named = Layout(header: fields) else {
                        throw DeviceLogProblemAtLine(
                            line: line,
                            problem: .gnssLogger(
                                "the '# Fix,' header names no LatitudeDegrees, LongitudeDegrees or UnixTimeMillis column"
                            ))
                    }
                    layout = named
                }
                builder.ingest.skip(.comment, line: line)
                return line
            }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            switch fields[0] {
            case "Fix": try fix(fields, layout: layout, line: line, into: &builder)
            case "NMEA": builder.ingest.skip(.wrappedNMEA, line: line)
            default: builder.ingest.skip(.otherRecord, line: line)
            }
            return line
        }) {
            lastLine = line
        }
        guard sawLine else { throw DeviceLogProblemAtLine(line: max(1, lastLine), problem: .emptyFile) }
        if builder.isEmpty {
            guard !builder.ingest.skipped.isEmpty else {
                throw DeviceLogProblemAtLine(line: lastLine, problem: .noData)
            }
            throw DeviceLogProblemAtLine(
                line: lastLine, problem: .noFix(format: .gnsslogger, skipped: builder.ingest.skippedText))
        }
    }

    static func fix(
        _ f: [Substring], layout: Layout, line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        guard f.count >= layout.count else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .gnssLogger("Fix record has \(f.count) fields, the layout needs \(layout.count)"))
        }
        func number(_ i: Int?) throws(DeviceLogProblemAtLine) -> Double? {
            guard let i, i >= 0 else { return nil }
            let text = f[i].trimmingSuffix { $0 == " " || $0 == "\t" || $0 == "\r" }
            if text.isEmpty { return nil }
            guard let v = DeviceLogLexical.number(text) else {
                throw DeviceLogProblemAtLine(
                    line: line,
                    problem: .notANumber(
                        column: "Fix \(layout.names[i] ?? "field \(i)")", value: DeviceLogLexical.shown(text)))
            }
            return v
        }
        func required(_ i: Int) throws(DeviceLogProblemAtLine) -> Double {
            guard let v = try number(i) else {
                throw DeviceLogProblemAtLine(
                    line: line, problem: .missingValue(column: "Fix \(layout.names[i] ?? "field \(i)")"))
            }
            return v
        }
        let latitude = try required(layout.latitude)
        let longitude = try required(layout.longitude)
        let time_ms = try required(layout.time)
        var accuracy = try number(layout.accuracy)
        if accuracy == nil {
            guard let m = builder.options.assumedAccuracy_m else {
                throw DeviceLogProblemAtLine(line: line, problem: .noAccuracy("GnssLogger: Fix record"))
            }
            accuracy = m
            builder.ingest.assume(.assumedAccuracy(m: m))
        }
        let provider = DeviceLogProvider(name: f[layout.provider])
        builder.ingest.providers[provider.rawValue, default: 0] += 1
        try builder.add(
            line: line, timestamp_s: time_ms / 1000, latitude: latitude, longitude: longitude, accuracy_m: accuracy,
            speed_mps: try number(layout.speed), course_deg: try number(layout.bearing), event: nil,
            provider: provider)
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> Substring {
        var s = self
        while let l = s.last, drop(l) { s = s.dropLast() }
        return s
    }
}
