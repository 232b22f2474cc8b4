/// Reads Android GnssLogger logs (`gnss_log_*.txt`): every `Fix` record is a fix, with the
/// platform's own accuracy and its provider (GPS, FLP, NLP) kept per fix, and the receiver's
/// wrapped `NMEA,<sentence>,<unix ms>` lines give one fix per epoch with provider `nmea`.
///
/// A `# Fix,…` header line names the columns (`LatitudeDegrees`/`Latitude`,
/// `LongitudeDegrees`/`Longitude`, `AccuracyMeters`/`Accuracy`, `UnixTimeMillis`/`(UTC)TimeInMs`,
/// `SpeedMps`/`Speed`, `BearingDegrees`/`Bearing`); without one the GnssLogger v3 layout
/// `Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,
/// BearingDegrees,UnixTimeMillis,…` is assumed. Other `#` lines are comments; `Raw`, `Status`,
/// sensor and other records are not fixes: both skipped and counted. A Fix without accuracy
/// takes `--assume-accuracy` (counted), else the file is refused naming it; a malformed number
/// names the record's column.
///
/// Wrapped NMEA is read as an NMEA file is (`NMEADeviceLogReader.Stream`: the same epochs, skip
/// reasons, damage and accuracy rules); an epoch without an RMC date takes the UTC day of its
/// first sentence's `<unix ms>` nearest the sentence's time of day, so no `--date` is needed. A
/// wrapped line without its `,<unix ms>` after the checksum is `truncatedSentence` (damage).
/// Fix records and wrapped NMEA of the same epochs are both kept, each with its provider; fixes
/// are stored in the order of their lines (a Fix record that comes while an NMEA epoch is open is
/// held until that epoch is read).
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
        var nmea = NMEADeviceLogReader.Stream(provider: .nmea)
        // Fix records read while an NMEA epoch is open, stored once it ends (file order).
        var held: [FixRecord] = []
        func release(into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine) {
            for r in held { try r.add(into: &builder) }
            held.removeAll(keepingCapacity: true)
        }
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
            case "Fix":
                if let record = try fix(fields, layout: layout, line: line, into: &builder) {
                    if nmea.epoch == nil { try record.add(into: &builder) } else { held.append(record) }
                }
            case "NMEA":
                let open = nmea.epoch?.line
                try wrapped(trimmed.dropFirst(5), line: line, into: &nmea, builder: &builder)
                if nmea.epoch?.line != open { try release(into: &builder) }  // the open epoch was read
            default: builder.ingest.skip(.otherRecord, line: line)
            }
            return line
        }) {
            lastLine = line
        }
        try nmea.finish(at: lastLine, into: &builder)
        try release(into: &builder)
        guard sawLine else { throw DeviceLogProblemAtLine(line: max(1, lastLine), problem: .emptyFile) }
        if builder.isEmpty {
            guard !builder.ingest.skipped.isEmpty else {
                throw DeviceLogProblemAtLine(line: lastLine, problem: .noData)
            }
            throw DeviceLogProblemAtLine(
                line: lastLine, problem: .noFix(format: .gnsslogger, skipped: builder.ingest.skippedText))
        }
    }

    /// One wrapped `NMEA,<sentence>,<unix ms>` line (`text`: what follows `NMEA,`).
    static func wrapped(
        _ text: Substring, line: Int, into nmea: inout NMEADeviceLogReader.Stream, builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        let record = text.trimmingSuffix { $0 == " " || $0 == "\t" }.drop { $0 == " " || $0 == "\t" }
        // The sentence ends at its checksum; the wrapper's time follows it after a comma.
        guard let star = record.lastIndex(of: "*"), let comma = record[star...].firstIndex(of: ",") else {
            if record.contains("*") {
                try NMEADeviceLogReader.damaged(
                    .truncatedSentence, .gnssLogger("NMEA record has no ',UnixTimeMillis' after its sentence"),
                    line: line, into: &builder)
            } else {
                try nmea.read(record, line: line, into: &builder)  // cut off before '*': the reader says so
            }
            return
        }
        let msText = record[record.index(after: comma)...]
        guard let ms = DeviceLogLexical.number(msText), ms.isFinite else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .notANumber(column: "NMEA UnixTimeMillis", value: DeviceLogLexical.shown(msText)))
        }
        // Beyond ±8.64e15 ms (±100 000 000 days from 1970, the range of an ECMAScript Date) no
        // device clock is meant; refused, as the UTC day of such a time has no Int.
        guard abs(ms) <= 8.64e15 else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .outOfRange(column: "NMEA UnixTimeMillis", value: DeviceLogLexical.shown(msText)))
        }
        try nmea.read(record[..<comma], line: line, receivedAt_s: ms / 1000, into: &builder)
    }

    /// A Fix record read and checked, stored by `add` (GnssLoggerDeviceLogReader holds it while an
    /// NMEA epoch is open, so that fixes stay in file order).
    struct FixRecord {
        var line: Int
        var time_s: Double
        var latitude: Double, longitude: Double, accuracy_m: Double
        var speed_mps: Double?, course_deg: Double?
        var provider: DeviceLogProvider

        func add(into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine) {
            try builder.add(
                line: line, timestamp_s: time_s, latitude: latitude, longitude: longitude, accuracy_m: accuracy_m,
                speed_mps: speed_mps, course_deg: course_deg, event: nil, provider: provider)
        }
    }

    /// Reads a Fix record (counting its provider and any assumption); the caller stores it. Nil
    /// when `--provider` does not select its provider (counted).
    static func fix(
        _ f: [Substring], layout: Layout, line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) -> FixRecord? {
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
        let provider = DeviceLogProvider(name: f[layout.provider])
        guard builder.selects(provider, line: line) else { return nil }
        var accuracy = try number(layout.accuracy)
        if accuracy == nil {
            guard let m = builder.options.assumedAccuracy_m else {
                throw DeviceLogProblemAtLine(line: line, problem: .noAccuracy("GnssLogger: Fix record"))
            }
            accuracy = m
            builder.ingest.assume(.assumedAccuracy(m: m))
        }
        return FixRecord(
            line: line, time_s: time_ms / 1000, latitude: latitude, longitude: longitude, accuracy_m: accuracy!,
            speed_mps: try number(layout.speed), course_deg: try number(layout.bearing), provider: provider)
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> Substring {
        var s = self
        while let l = s.last, drop(l) { s = s.dropLast() }
        return s
    }
}
