import GeoPolicy

/// The file formats a device log can be imported from (contract: docs/device-logs.md).
public enum DeviceLogFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Comma-separated values with a header line.
    case csv
    /// GPX 1.1 (`trkpt` / `wpt` with `time`).
    case gpx
    /// JSON Lines: one flat JSON object per line.
    case jsonl
    /// NMEA 0183 sentences (GGA, RMC, GLL, GST, GSA, VTG), one per line, checksummed.
    case nmea
    /// Android GnssLogger (`Fix,<provider>,<lat>,<lon>,…` records and wrapped `NMEA,` lines).
    case gnsslogger
    /// OwnTracks messages (`location` fixes, `transition` events), one JSON object per line.
    case owntracks
    /// Google Takeout location history (`Records.json`: `{"locations": [...]}`), read element by element.
    case googleRecords = "google-records"
    /// GeoJSON FeatureCollection of timed Point features, read feature by feature.
    case geojson

    public var description: String { rawValue }

    /// The format named by a file's extension (`.csv`, `.gpx`, `.jsonl`, `.nmea`), case-insensitive.
    /// - Throws: `DeviceLogError` (`.unknownFormat`) naming the file and the extension.
    public init(path: String) throws(DeviceLogError) {
        guard let format = DeviceLogFormat(extensionOf: path) else {
            throw DeviceLogError(file: path, line: nil, problem: .unknownFormat(extension: Self.fileExtension(path)))
        }
        self = format
    }

    /// The format named by a file's extension, or nil when the extension names none.
    public init?(extensionOf path: String) {
        guard let format = DeviceLogFormat(rawValue: Self.fileExtension(path).lowercased()) else { return nil }
        self = format
    }

    static func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        return name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
    }

    /// The format the first bytes of a file look like (docs/device-logs.md, "Formats"): after a
    /// BOM and white space, `<` with a `<gpx` element is GPX; a `Fix,`, `# Fix,` or `NMEA,` line
    /// (first, or after `#` lines) is GnssLogger; `$` or `!` is NMEA, and so is `#` (a comment) when a
    /// later line starts with `$`; `{` is OwnTracks when its first line has a `"_type"` key (as
    /// is a Recorder line `TIME\t*\t{…}`), Google Records when it holds `"locations"` and
    /// `"latitudeE7"`, GeoJSON when it holds `"FeatureCollection"`, else JSON Lines; a first line with a `timestamp`
    /// column is CSV. Nil when none of these holds.
    public static func sniff(_ bytes: some Collection<UInt8>) -> DeviceLogFormat? {
        var b = Array(bytes.prefix(Self.sniffLength_bytes))
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        guard let first = b.firstIndex(where: { ![0x20, 0x09, 0x0D, 0x0A].contains($0) }) else { return nil }
        let text = String(decoding: b[first...], as: UTF8.self)
        switch b[first] {
        case UInt8(ascii: "<"): return text.contains("<gpx") || text.contains(":gpx") ? .gpx : nil
        case UInt8(ascii: "$"), UInt8(ascii: "!"): return .nmea
        case UInt8(ascii: "#"):
            let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            if lines.contains(where: { $0.hasPrefix("Fix,") || $0.hasPrefix("# Fix,") || $0.hasPrefix("NMEA,") }) {
                return .gnsslogger
            }
            return lines.contains(where: { $0.hasPrefix("$") }) ? .nmea : nil
        case UInt8(ascii: "{") where text.contains("\"locations\"") && text.contains("\"latitudeE7\""):
            return .googleRecords
        case UInt8(ascii: "{") where text.contains("\"FeatureCollection\""):
            return .geojson
        case UInt8(ascii: "{"): return text.prefix(while: { $0 != "\n" }).contains("\"_type\"") ? .owntracks : .jsonl
        case UInt8(ascii: "F") where text.hasPrefix("Fix,"), UInt8(ascii: "N") where text.hasPrefix("NMEA,"):
            return .gnsslogger
        case UInt8(ascii: "1"),
            UInt8(ascii: "2")
        where text.prefix(while: { $0 != "\n" }).contains("\t") && text.contains("\"_type\""):
            return .owntracks  // an OwnTracks Recorder line: TIME\t*\t{...}
        default:
            let header = text.prefix(while: { $0 != "\n" && $0 != "\r\n" })
            let names = header.split(separator: ",").map { String($0.filter { !" \t\r\"".contains($0) }) }
            return names.contains("timestamp") ? .csv : nil
        }
    }

    /// How much of a file `sniff` looks at.
    public static let sniffLength_bytes = 4096
}

/// A region callback the system delivered (iOS `didEnterRegion` / `didExitRegion`,
/// Android `GEOFENCE_TRANSITION_ENTER` / `_EXIT`), as logged by the app.
public enum SystemEventKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case enter
    case exit

    public var description: String { rawValue }

    /// The fence state the event claims the device has reached.
    public var claimedState: FenceState { self == .enter ? .inside : .outside }
}

/// One system event from a device log.
public struct SystemEvent: Sendable, Hashable {
    /// `enter` or `exit`.
    public var kind: SystemEventKind
    /// Time of the event in seconds (same clock as the fixes).
    public var timestamp_s: Double
    /// 1-based line of the log the event was read from (0 when not from a file).
    public var line: Int
    /// The place the event is about, as the log names it (CSV column and JSON Lines key `place`,
    /// OwnTracks `desc`); nil when the log names none (a one-fence log).
    public var place: String?

    public init(kind: SystemEventKind, timestamp_s: Double, line: Int, place: String? = nil) {
        self.kind = kind
        self.timestamp_s = timestamp_s
        self.line = line
        self.place = place
    }
}

/// One logged location fix: the raw fix plus what the log adds to it.
///
/// Values are exactly as logged (NaN, latitude 91, accuracy −1 stay as they are);
/// the engine decides validity and gives the reason.
public struct DeviceLogFix: Sendable, Hashable {
    /// The fix as the engine receives it.
    public var fix: Fix
    // Stored compactly (56 bytes instead of 72 with two `Double?` and an `Int`): a 260 MB
    // log holds millions of these. Absent speed/course are flagged, not optional.
    private var speedValue: Double
    private var courseValue: Double
    private var lineValue: Int32
    private var present: UInt8
    private var providerValue: UInt8

    /// Speed over ground in m/s as logged (iOS: negative = invalid), `nil` when not logged.
    public var speed_mps: Double? {
        get { present & 1 != 0 ? speedValue : nil }
        set {
            speedValue = newValue ?? 0
            present = newValue == nil ? present & ~1 : present | 1
        }
    }
    /// Course over ground in degrees clockwise from true north as logged
    /// (iOS: negative = invalid), `nil` when not logged.
    public var course_deg: Double? {
        get { present & 2 != 0 ? courseValue : nil }
        set {
            courseValue = newValue ?? 0
            present = newValue == nil ? present & ~2 : present | 2
        }
    }
    /// 1-based line of the log the fix was read from (GPX: the line of the point's start tag);
    /// at most `Int32.max` (files are limited to 256 MiB, far fewer lines).
    public var line: Int {
        get { Int(lineValue) }
        set { lineValue = Int32(clamping: newValue) }
    }

    /// The location provider that delivered the fix (GnssLogger's `Provider`), nil when the log does not say.
    public var provider: DeviceLogProvider? {
        get { DeviceLogProvider(code: providerValue) }
        set { providerValue = newValue?.code ?? 0 }
    }

    public init(
        fix: Fix, speed_mps: Double? = nil, course_deg: Double? = nil, line: Int, provider: DeviceLogProvider? = nil
    ) {
        self.fix = fix
        providerValue = provider?.code ?? 0
        speedValue = speed_mps ?? 0
        courseValue = course_deg ?? 0
        lineValue = Int32(clamping: line)
        present = (speed_mps == nil ? 0 : 1) | (course_deg == nil ? 0 : 2)
    }

    public static func == (a: DeviceLogFix, b: DeviceLogFix) -> Bool {
        a.fix == b.fix && a.speed_mps == b.speed_mps && a.course_deg == b.course_deg && a.line == b.line
            && a.provider == b.provider
    }

    public func hash(into h: inout Hasher) {
        h.combine(fix)
        h.combine(speed_mps)
        h.combine(course_deg)
        h.combine(line)
        h.combine(provider)
    }
}

/// The location provider of a fix, as Android names it (GnssLogger `GPS`/`FLP`/`NLP`, or
/// `gps`/`fused`/`network`), or `nmea` for a fix read from GnssLogger's wrapped NMEA sentences;
/// stored in one byte of `DeviceLogFix`.
public enum DeviceLogProvider: String, Sendable, Hashable, CaseIterable {
    /// The GNSS receiver itself.
    case gps
    /// The fused location provider (GNSS, Wi-Fi, cell and sensors combined).
    case fused
    /// The network location provider (Wi-Fi and cell).
    case network
    /// Any other name.
    case other
    /// The receiver's own NMEA sentences (GnssLogger's wrapped `NMEA,` lines), one fix per epoch.
    case nmea

    /// The provider a log names, case-insensitive; `other` for a name not listed.
    public init(name: some StringProtocol) {
        switch name.lowercased() {
        case "gps": self = .gps
        case "flp", "fused": self = .fused
        case "nlp", "network": self = .network
        case "nmea": self = .nmea
        default: self = .other
        }
    }

    var code: UInt8 { UInt8(Self.allCases.firstIndex(of: self)! + 1) }

    init?(code: UInt8) {
        guard code >= 1, Int(code) <= Self.allCases.count else { return nil }
        self = Self.allCases[Int(code) - 1]
    }
}

/// A device log: the fixes and system events of one recording, in file order.
///
/// Nothing is sorted, deduplicated or filtered: backwards timestamps and duplicate
/// rows are kept so that the engine can reject them with its reason.
public struct DeviceLog: Sendable, Hashable {
    /// The path (or name) the log was read from; used in error messages and reports.
    public var file: String
    /// The format it was read as.
    public var format: DeviceLogFormat
    /// Every fix in file order.
    public var fixes: [DeviceLogFix]
    /// Every system event in file order.
    public var events: [SystemEvent]
    /// What the import skipped (per reason) and assumed; empty for the app's own CSV and JSON Lines.
    public var ingest: DeviceLogIngest

    public init(
        file: String, format: DeviceLogFormat, fixes: [DeviceLogFix], events: [SystemEvent],
        ingest: DeviceLogIngest = DeviceLogIngest()
    ) {
        self.file = file
        self.format = format
        self.fixes = fixes
        self.events = events
        self.ingest = ingest
    }
}
