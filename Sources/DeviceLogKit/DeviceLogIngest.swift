/// What the caller lets a reader assume, and how strictly it treats damaged lines
/// (docs/device-logs.md, "Ingest policy"). Nothing here has a default value: an assumption is
/// made only when it is given.
public struct DeviceLogReadOptions: Sendable, Hashable {
    /// `--assume-accuracy M`: the horizontal accuracy in metres of every GPX point or NMEA epoch
    /// that carries none (no accuracy extension, HDOP, PDOP or GST); `nil` refuses such a fix.
    public var assumedAccuracy_m: Double?
    /// `--date YYYY-MM-DD`: the UTC day of the NMEA epochs before the first RMC date, in days
    /// since 1970-01-01; `nil` refuses a position before any date.
    public var assumedDate_days: Int?
    /// `--strict`: a damaged line (bad checksum, truncated sentence, a line that is not a
    /// sentence) is an error, as the app's own formats are; otherwise it is skipped and counted.
    public var strict: Bool
    /// `--columns time=X,lat=Y,lon=Z[,accuracy=W][,speed=S][,course=C][,event=E]`: read any CSV
    /// by naming which of its columns hold what (`DeviceLogColumns`); nil: the app's own header.
    public var columns: DeviceLogColumns?
    /// `--provider LIST`: keep only the fixes of these providers (GnssLogger, Google Records); the
    /// others are skipped and counted (`providerNotSelected`). nil: every provider loads.
    public var providers: Set<DeviceLogProvider>?

    public init(
        assumedAccuracy_m: Double? = nil, assumedDate_days: Int? = nil, strict: Bool = false,
        columns: DeviceLogColumns? = nil, providers: Set<DeviceLogProvider>? = nil
    ) {
        self.assumedAccuracy_m = assumedAccuracy_m
        self.assumedDate_days = assumedDate_days
        self.strict = strict
        self.columns = columns
        self.providers = providers
    }

    /// No assumption, damage skipped and counted.
    public static let standard = DeviceLogReadOptions()

    /// Parses `YYYY-MM-DD` (the value of `--date`) into days since 1970-01-01.
    /// - Returns: nil when the text is not a calendar date of that form.
    public static func date(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10), (1...12).contains(m), d >= 1,
            d <= DeviceLogLexical.daysInMonth(year: y, month: m)
        else { return nil }
        return DeviceLogLexical.daysFromCivil(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD` of a day count since 1970-01-01 (the inverse of `date(_:)`).
    public static func dateText(_ days: Int) -> String {
        let (y, m, d) = DeviceLogLexical.civilFromDays(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)-\(two(m))-\(two(d))"
    }
}

/// How the `time` column of a CSV read by `--columns` is written: `time=COLUMN[:FORMAT]`.
public enum DeviceLogTimeFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No format given: the `timestamp` grammar (Unix seconds or ISO-8601 with zone).
    case auto
    /// ISO-8601 / RFC 3339 with a zone (`Z` or an offset) only.
    case iso
    /// Unix seconds (decimal, fraction allowed) only.
    case epochSeconds = "epoch-s"
    /// Unix milliseconds (decimal) only.
    case epochMilliseconds = "epoch-ms"

    public var description: String { rawValue }

    /// The formats a `time=COLUMN:FORMAT` suffix may name.
    public static let named: [DeviceLogTimeFormat] = [.iso, .epochSeconds, .epochMilliseconds]

    /// Reads one time value: Unix seconds, or the reason it is not a time of this format.
    func timestamp(_ value: UnsafeBufferPointer<UInt8>) -> Result<Double, DeviceLogLexical.TimestampProblem> {
        switch self {
        case .auto: return DeviceLogLexical.timestamp(value)
        case .iso:
            if DeviceLogLexical.number(value) != nil {
                return .failure(.init("a number, but --columns says time is ISO-8601 (time=COLUMN:iso)"))
            }
            return DeviceLogLexical.timestamp(value)
        case .epochSeconds, .epochMilliseconds:
            let unit = self == .epochSeconds ? "seconds" : "milliseconds"
            guard let v = DeviceLogLexical.number(value) else {
                return .failure(.init("not Unix \(unit) (--columns time=COLUMN:\(rawValue))"))
            }
            guard v.isFinite else { return .failure(DeviceLogLexical.notFinite(unit: unit)) }
            return .success(self == .epochSeconds ? v : v / 1000)
        }
    }
}

/// Which columns of a foreign CSV hold what (`--columns`): the file's header names per field.
///
/// Keys: `time` (Unix seconds or ISO-8601 with zone, as the `timestamp` column; `time=COLUMN:iso`,
/// `:epoch-s` or `:epoch-ms` names one format, `DeviceLogTimeFormat`), `lat`, `lon` (degrees),
/// `accuracy` (metres), `speed` (m/s), `course` (degrees), `event` (`enter`/`exit`); `time`, `lat`
/// and `lon` are required. Header names are matched exactly; columns the map does not name are
/// ignored and listed (`DeviceLogIngest.ignoredColumns`).
public struct DeviceLogColumns: Sendable, Hashable, CustomStringConvertible {
    /// The file's column name for each mapped field, in the keys' order.
    public private(set) var names: [(key: String, column: String)]
    /// How the time column is written (`time=COLUMN:FORMAT`; `auto` without a suffix).
    public private(set) var timeFormat = DeviceLogTimeFormat.auto

    /// The keys and what they map to, in the order they are written.
    public static let keys = ["time", "lat", "lon", "accuracy", "speed", "course", "event", "place"]

    static let fieldOfKey: [String: DeviceLogField] = [
        "time": .timestamp, "lat": .latitude, "lon": .longitude, "accuracy": .horizontalAccuracy, "speed": .speed,
        "course": .course, "event": .event, "place": .place,
    ]

    /// Parses `time=X,lat=Y,lon=Z,…`.
    /// - Returns: the map, or the reason the text is not one (naming the key).
    public static func parse(_ text: String) -> Result<DeviceLogColumns, ColumnsProblem> {
        var names: [(key: String, column: String)] = []
        var timeFormat: DeviceLogTimeFormat?
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let eq = item.firstIndex(of: "=") else {
                return .failure(ColumnsProblem("'\(DeviceLogLexical.shown(item))' is not KEY=COLUMN"))
            }
            let key = String(item[..<eq])
            var column = String(item[item.index(after: eq)...])
            if key == "time", let colon = column.lastIndex(of: ":"),
                let format = DeviceLogTimeFormat(rawValue: String(column[column.index(after: colon)...])),
                format != .auto
            {
                // `time=COLUMN:FORMAT`; a column whose own name ends in `:iso` is written `NAME:iso:FORMAT`.
                guard timeFormat == nil else { return .failure(ColumnsProblem("time given twice")) }
                timeFormat = format
                column = String(column[..<colon])
            }
            guard fieldOfKey[key] != nil else {
                return .failure(
                    ColumnsProblem(
                        "unknown key '\(DeviceLogLexical.shown(key))' (keys: \(keys.joined(separator: ", ")))"))
            }
            guard !column.isEmpty else { return .failure(ColumnsProblem("\(key)= names no column")) }
            guard !names.contains(where: { $0.key == key }) else {
                return .failure(ColumnsProblem("\(key) given twice"))
            }
            guard !names.contains(where: { $0.column == column }) else {
                return .failure(ColumnsProblem("column '\(DeviceLogLexical.shown(column))' mapped twice"))
            }
            names.append((key, column))
        }
        for key in ["time", "lat", "lon"] where !names.contains(where: { $0.key == key }) {
            return .failure(ColumnsProblem("\(key)=COLUMN is required"))
        }
        names.sort { keys.firstIndex(of: $0.key)! < keys.firstIndex(of: $1.key)! }
        return .success(DeviceLogColumns(names: names, timeFormat: timeFormat ?? .auto))
    }

    /// Why a `--columns` text was refused.
    public struct ColumnsProblem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether the map names an accuracy column.
    public var hasAccuracy: Bool { names.contains { $0.key == "accuracy" } }

    /// The field a header name maps to, nil when the map does not name it.
    func field(ofColumn name: String) -> DeviceLogField? {
        names.first { $0.column == name }.flatMap { Self.fieldOfKey[$0.key] }
    }

    /// `time=X,lat=Y,…` in the keys' order (`time=X:FORMAT` when a format was named).
    public var description: String {
        names.map { "\($0.key)=\($0.column)" + ($0.key == "time" && timeFormat != .auto ? ":\(timeFormat)" : "") }
            .joined(separator: ",")
    }

    public static func == (a: Self, b: Self) -> Bool { a.description == b.description }
    public func hash(into h: inout Hasher) { h.combine(description) }
}

/// Why a line or point of a recording was skipped instead of read as a fix.
///
/// "Not a fix" reasons describe content the recording holds on purpose (a receiver without a fix
/// yet, a waypoint without a time); "damage" reasons describe lines broken in transit or storage.
/// Both are counted; damage is refused under `DeviceLogReadOptions.strict`.
public enum DeviceLogSkipReason: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// NMEA: a `#` comment line (gpsd and other loggers write them).
    case comment
    /// NMEA: a GGA, RMC, GLL or GST without a position or time, or a GST, GSA or VTG of an epoch
    /// without a position (the receiver has no fix yet).
    case noFixSentence
    /// NMEA: a GSA or VTG (they carry no time) before any timed sentence, so with no epoch to belong to.
    case sentenceWithoutEpoch
    /// NMEA: a well-formed sentence of a type that carries no fix FenceLab reads (GSV, ZDA, TXT,
    /// RTE, an AIS `!` sentence, an address that is not talker + type, …).
    case otherSentence
    /// NMEA: a proprietary sentence (`$P…`: a vendor's own messages, e.g. `$PUBX`, `$PGRME`).
    case proprietarySentence
    /// GPX: a point with `<fix>none</fix>` (the receiver says it has no fix).
    case noFixPoint
    /// GPX: a `<wpt>` without `<time>` (a place marked, not a fix).
    case untimedWaypoint
    /// GPX: a `<rtept>` without `<time>` (a planned route, not a fix).
    case untimedRoutePoint
    /// GPX: a `<trkpt>` without `<time>`.
    case untimedTrackPoint
    /// GnssLogger: a `Raw`, `Status`, sensor or other record that is not a `Fix`; OwnTracks: a
    /// message that is neither `location` nor `transition`.
    case otherRecord
    /// GnssLogger, Google Records: a fix of a provider `--provider` does not name (still counted
    /// in `DeviceLogIngest.providers`).
    case providerNotSelected
    /// GeoJSON: a Point feature without `properties.time` / `properties.timestamp`.
    case untimedFeature
    /// GeoJSON: a feature whose geometry is not a Point (a line, a polygon, none).
    case notAPoint
    /// NMEA damage: the checksum does not match the sentence.
    case badChecksum
    /// NMEA damage: a sentence without its `*hh` end (cut off mid-line).
    case truncatedSentence
    /// NMEA damage: a line that starts with neither `$` nor `#`.
    case notASentence

    public var description: String { rawValue }

    /// Damage (refused under `--strict`) rather than content that is not a fix.
    public var isDamage: Bool {
        switch self {
        case .badChecksum, .truncatedSentence, .notASentence: return true
        default: return false
        }
    }

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One assumption a reader made to turn a recording into fixes, with how many fixes rest on it.
public struct DeviceLogAssumption: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// `--assume-accuracy M`: the fix carried no accuracy at all.
        case assumedAccuracy(m: Double)
        /// accuracy = HDOP × `GPXAccuracy.uere_m` (GPX `<hdop>`, NMEA GGA or GSA HDOP).
        case accuracyFromHDOP
        /// accuracy = PDOP × `GPXAccuracy.uere_m` (GPX `<pdop>` without `<hdop>`; PDOP ≥ HDOP).
        case accuracyFromPDOP
        /// `--date YYYY-MM-DD` for NMEA epochs before the first RMC date (days since 1970-01-01).
        case assumedDate(days: Int)
        /// A GPX time without a zone, read as UTC (what the GPX schema prescribes).
        case zonelessTimeAsUTC
    }

    public var kind: Kind
    /// Fixes that rest on the assumption.
    public var fixes: Int

    public init(kind: Kind, fixes: Int) {
        self.kind = kind
        self.fixes = fixes
    }

    /// Short key for reports (`assumedAccuracy`, `accuracyFromHDOP`, `accuracyFromPDOP`, `assumedDate`,
    /// `zonelessTimeAsUTC`).
    public var key: String {
        switch kind {
        case .assumedAccuracy: return "assumedAccuracy"
        case .accuracyFromHDOP: return "accuracyFromHDOP"
        case .accuracyFromPDOP: return "accuracyFromPDOP"
        case .assumedDate: return "assumedDate"
        case .zonelessTimeAsUTC: return "zonelessTimeAsUTC"
        }
    }

    /// Whether the accuracy of these fixes is not the device's own estimate.
    public var concernsAccuracy: Bool {
        switch kind {
        case .assumedAccuracy, .accuracyFromHDOP, .accuracyFromPDOP: return true
        default: return false
        }
    }

    /// What was assumed, in words (no coordinates).
    public var detail: String {
        let uere = GPXAccuracy.uere_m
        switch kind {
        case .assumedAccuracy(let m): return "accuracy \(DeviceLogAssumption.metres(m)) m (--assume-accuracy)"
        case .accuracyFromHDOP: return "accuracy = HDOP × \(DeviceLogAssumption.metres(uere)) m (UERE)"
        case .accuracyFromPDOP:
            return "accuracy = PDOP × \(DeviceLogAssumption.metres(uere)) m (UERE; no HDOP, PDOP ≥ HDOP overstates it)"
        case .assumedDate(let days): return "date \(DeviceLogReadOptions.dateText(days)) (--date) before any RMC date"
        case .zonelessTimeAsUTC: return "time without a zone read as UTC (the GPX schema's rule)"
        }
    }

    public var description: String { "\(detail): \(fixes) \(fixes == 1 ? "fix" : "fixes")" }

    static func metres(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

/// What an import skipped and assumed: the counts per skip reason and every assumption with the
/// number of fixes that rest on it. Empty for a log read without either (the app's own CSV and
/// JSON Lines always are).
public struct DeviceLogIngest: Sendable, Hashable {
    /// Lines or points skipped, per reason.
    public var skipped: [DeviceLogSkipReason: Int] = [:]
    /// The first line skipped for each reason (1-based), to find it in the file.
    public var firstSkippedLine: [DeviceLogSkipReason: Int] = [:]
    /// Assumptions in a fixed order (the order of `DeviceLogAssumption.Kind`'s cases as met).
    public var assumptions: [DeviceLogAssumption] = []
    /// `--columns`: the map a CSV was read with, and the header's columns it does not name (ignored).
    public var columns: DeviceLogColumns?
    public var ignoredColumns: [String] = []
    /// Fixes per location provider (`DeviceLogProvider.rawValue`), for logs that name one
    /// (GnssLogger, Google Records), selected or not.
    public var providers: [String: Int] = [:]
    /// `--provider`: the providers kept (`DeviceLogProvider.rawValue`, sorted); nil when every one loads.
    public var selectedProviders: [String]?

    public init() {}

    /// Nothing skipped, nothing assumed, no column map, no provider named.
    public var isEmpty: Bool { skipped.isEmpty && assumptions.isEmpty && columns == nil && providers.isEmpty }

    /// The skip counts sorted by reason.
    public var skippedCounts: [(reason: DeviceLogSkipReason, count: Int)] {
        skipped.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Every fix whose accuracy rests on an assumption (`--assume-accuracy`, HDOP or PDOP × UERE).
    public var accuracyAssumedFixes: Int {
        assumptions.filter(\.concernsAccuracy).reduce(0) { $0 + $1.fixes }
    }

    /// `noFixSentence 3 (first at line 2), badChecksum 1 (first at line 9)`.
    public var skippedText: String {
        skippedCounts.map { "\($0.reason) \($0.count) (first at line \(firstSkippedLine[$0.reason] ?? 0))" }
            .joined(separator: ", ")
    }

    /// `skipped noFixSentence 3 (first at line 2), …; assumed …: N fixes`, or nil when empty.
    public var summary: String? {
        if isEmpty { return nil }
        var parts: [String] = []
        if !skipped.isEmpty {
            parts.append("skipped " + skippedText)
        } else {
            parts.append("skipped nothing")
        }
        parts.append(
            assumptions.isEmpty
                ? "assumed nothing" : "assumed " + assumptions.map(\.description).joined(separator: "; "))
        if !providers.isEmpty {
            parts.append(
                "providers "
                    + providers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    + (selectedProviders.map { " (kept \($0.joined(separator: ",")): --provider)" } ?? ""))
        }
        if let columns {
            parts.append(
                "columns \(columns) (--columns), ignored "
                    + (ignoredColumns.isEmpty
                        ? "none" : ignoredColumns.map { "'\(DeviceLogLexical.shown($0))'" }.joined(separator: ", ")))
        }
        return parts.joined(separator: "; ")
    }

    /// Counts `count` lines skipped for `reason`, the first of them at `line` (the earliest line
    /// is kept: an NMEA epoch counts its sentences when it ends, after later lines were counted).
    mutating func skip(_ reason: DeviceLogSkipReason, line: Int, count: Int = 1) {
        guard count > 0 else { return }
        skipped[reason, default: 0] += count
        firstSkippedLine[reason] = min(firstSkippedLine[reason] ?? line, line)
    }

    mutating func assume(_ kind: DeviceLogAssumption.Kind) {
        if let i = assumptions.firstIndex(where: { $0.kind == kind }) {
            assumptions[i].fixes += 1
        } else {
            assumptions.append(DeviceLogAssumption(kind: kind, fixes: 1))
        }
    }
}
