/// Reads GPX 1.0/1.1 device logs as devices and apps write them: every timed `trkpt`, `rtept` and
/// `wpt` becomes a fix.
///
/// Per point: `lat` and `lon` attributes (required) and `<time>` (ISO-8601; a time without a zone
/// is UTC, as the GPX schema says, and counted as an assumption). A point without `<time>` is not
/// a fix: it is skipped and counted (`untimedWaypoint`, `untimedRoutePoint`, `untimedTrackPoint`),
/// and so is a point with `<fix>none</fix>` (`noFixPoint`); a file without one timed point is
/// refused with the counts. Accuracy: `<extensions>…<horizontal_accuracy>` (metres, the
/// platform's own value); else `<hdop>`, else `<pdop>`, × `GPXAccuracy.uere_m` (an assumption,
/// counted); else `--assume-accuracy` (counted); else the file is refused naming the option.
/// Optional `<speed>` (m/s) and `<course>` (degrees) directly (GPX 1.0) or in any extension
/// (Garmin TrackPointExtension v2 included), and `<event>` (`enter`/`exit`) in extensions.
/// Elements are matched by local name (namespace prefixes ignored; of two with the same local
/// name and different prefixes the first wins); other elements are ignored. The XML itself is
/// read by `XMLTokenizer` (no DOCTYPE, no entities).
enum GPXDeviceLogReader {
    private struct Point {
        var kind: String
        var line: Int
        var latitude: Double
        var longitude: Double
        var values: [String: String] = [:]
        /// The qualified name each value was read from (a second one of the same local name is ignored).
        var names: [String: String] = [:]
    }

    /// Local names whose text is captured inside a point.
    private static let captured: Set<String> = [
        "time", "hdop", "pdop", "fix", "horizontal_accuracy", "speed", "course", "event",
    ]

    /// Reads the GPX document `source` delivers, piece by piece (the tokenizer holds one piece
    /// plus one token, never the whole file).
    static func read(
        _ source: DeviceLogByteSource, limits: DeviceLogLimits, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        var xml = XMLTokenizer(source, maxToken_bytes: limits.maxLineLength_bytes)
        var stack: [String] = []
        var point: Point?
        var capture: (name: String, text: String, keep: Bool)?
        var sawRoot = false
        while true {
            let token = try xml.next()
            let line = xml.tokenLine
            func fail(_ p: DeviceLogProblem) -> DeviceLogProblemAtLine {
                DeviceLogProblemAtLine(line: line, problem: p)
            }
            switch token {
            case .endOfFile:
                if !sawRoot {
                    throw DeviceLogProblemAtLine(
                        line: xml.line, problem: xml.onlySpaceSoFar ? .emptyFile : .gpx("no <gpx> element"))
                }
                if let open = stack.last {
                    throw DeviceLogProblemAtLine(
                        line: xml.line,
                        problem: .xml(
                            "unexpected end of file: <\(DeviceLogLexical.shown(open))> not closed (truncated file?)"))
                }
                if builder.isEmpty {
                    // No timed point, skipped ones or none at all: the reason the GPX contract names.
                    throw DeviceLogProblemAtLine(
                        line: xml.line, problem: .noFix(format: .gpx, skipped: builder.ingest.skippedText))
                }
                return
            case .text(let text):
                if capture != nil {
                    capture!.text += text
                    if capture!.text.utf8.count > limits.maxLineLength_bytes {
                        throw fail(.xmlTokenTooLong(limit_bytes: limits.maxLineLength_bytes))
                    }
                } else if stack.isEmpty, !text.utf8.allSatisfy(isSpaceOrBOM) {
                    throw fail(.xml("text outside the <gpx> element"))
                }
            case .start(let name, let attributes, let selfClosing):
                let local = localName(name)
                if stack.isEmpty {
                    guard !sawRoot else { throw fail(.xml("a second root element <\(DeviceLogLexical.shown(name))>")) }
                    guard local == "gpx" else {
                        throw fail(.gpx("root element is <\(DeviceLogLexical.shown(name))>, expected <gpx>"))
                    }
                    if let version = attributes.first(where: { $0.name == "version" })?.value, version != "1.1",
                        version != "1.0"
                    {
                        throw fail(.gpx("version '\(DeviceLogLexical.shown(version))' is not 1.0 or 1.1"))
                    }
                    sawRoot = true
                }
                if capture != nil {
                    throw fail(
                        .gpx(
                            "element <\(DeviceLogLexical.shown(name))> inside <\(DeviceLogLexical.shown(capture!.name))>"
                        ))
                }
                if ["trkpt", "rtept", "wpt"].contains(local) {
                    guard point == nil else {
                        throw fail(.gpx("<\(DeviceLogLexical.shown(name))> inside another point"))
                    }
                    point = try startPoint(name: name, attributes: attributes, line: line)
                } else if point != nil, captured.contains(local) {
                    var keep = true
                    if let first = point!.names[local] {
                        guard first != name else {
                            throw fail(.gpx("duplicate <\(DeviceLogLexical.shown(name))> in a point"))
                        }
                        keep = false  // the same quantity under another namespace: the first wins
                    } else {
                        point!.names[local] = name
                    }
                    if selfClosing {
                        if keep { point!.values[local] = "" }
                    } else {
                        capture = (local, "", keep)
                    }
                }
                if selfClosing {
                    if let p = point, ["trkpt", "rtept", "wpt"].contains(local) {
                        try finish(p, into: &builder)
                        point = nil
                    }
                } else {
                    stack.append(name)
                }
            case .end(let name):
                guard let open = stack.last else {
                    throw fail(.xml("end tag </\(DeviceLogLexical.shown(name))> without a start tag"))
                }
                guard open == name else {
                    throw fail(
                        .xml(
                            "end tag </\(DeviceLogLexical.shown(name))> does not close <\(DeviceLogLexical.shown(open))>"
                        ))
                }
                stack.removeLast()
                let local = localName(name)
                if let c = capture, c.name == local {
                    if c.keep { point!.values[local] = c.text }
                    capture = nil
                } else if let p = point, ["trkpt", "rtept", "wpt"].contains(local) {
                    try finish(p, into: &builder)
                    point = nil
                }
            }
        }
    }

    private static func isSpaceOrBOM(_ b: UInt8) -> Bool {
        switch b {
        case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: return true
        default: return false
        }
    }

    private static func localName(_ name: String) -> String {
        if let colon = name.lastIndex(of: ":") { return String(name[name.index(after: colon)...]) }
        return name
    }

    private static func startPoint(
        name: String, attributes: [XMLTokenizer.Attribute], line: Int
    ) throws(DeviceLogProblemAtLine) -> Point {
        func coordinate(_ key: String) throws(DeviceLogProblemAtLine) -> Double {
            guard let text = attributes.first(where: { $0.name == key })?.value else {
                throw DeviceLogProblemAtLine(
                    line: line, problem: .gpx("<\(DeviceLogLexical.shown(name))> has no \(key) attribute"))
            }
            let trimmed = text.trimmingSpaces
            guard let value = DeviceLogLexical.number(trimmed[...]) else {
                throw DeviceLogProblemAtLine(
                    line: line, problem: .notANumber(column: key, value: DeviceLogLexical.shown(text)))
            }
            return value
        }
        return Point(
            kind: localName(name), line: line, latitude: try coordinate("lat"), longitude: try coordinate("lon"))
    }

    private static func finish(_ p: Point, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine) {
        func fail(_ problem: DeviceLogProblem) -> DeviceLogProblemAtLine {
            DeviceLogProblemAtLine(line: p.line, problem: problem)
        }
        func number(_ key: String) throws(DeviceLogProblemAtLine) -> Double? {
            guard let text = p.values[key]?.trimmingSpaces else { return nil }
            guard let value = DeviceLogLexical.number(text[...]) else {
                throw fail(.notANumber(column: key, value: DeviceLogLexical.shown(text)))
            }
            return value
        }
        guard let timeText = p.values["time"]?.trimmingSpaces else {
            // A marked place or a planned route, not a fix.
            switch p.kind {
            case "wpt": builder.ingest.skip(.untimedWaypoint, line: p.line)
            case "rtept": builder.ingest.skip(.untimedRoutePoint, line: p.line)
            default: builder.ingest.skip(.untimedTrackPoint, line: p.line)
            }
            return
        }
        if p.values["fix"]?.trimmingSpaces == "none" {
            builder.ingest.skip(.noFixPoint, line: p.line)
            return
        }
        let timestamp_s: Double
        var zoneless = false
        switch DeviceLogLexical.timestamp(timeText[...], zonelessAsUTC: &zoneless) {
        case .success(let t): timestamp_s = t
        case .failure(let problem):
            throw fail(.badTimestamp(value: DeviceLogLexical.shown(timeText), reason: problem.reason))
        }
        let accuracy_m: Double
        var assumption: DeviceLogAssumption.Kind?
        if let extensionAccuracy = try number("horizontal_accuracy") {
            accuracy_m = extensionAccuracy
        } else if let hdop = try number("hdop") {
            accuracy_m = hdop * GPXAccuracy.uere_m
            assumption = .accuracyFromHDOP
        } else if let pdop = try number("pdop") {
            accuracy_m = pdop * GPXAccuracy.uere_m
            assumption = .accuracyFromPDOP
        } else if let m = builder.options.assumedAccuracy_m {
            accuracy_m = m
            assumption = .assumedAccuracy(m: m)
        } else {
            throw fail(.noAccuracy("GPX: <\(p.kind)> (no <extensions><horizontal_accuracy>, <hdop> or <pdop>)"))
        }
        var event: SystemEventKind?
        if let text = p.values["event"]?.trimmingSpaces {
            event = try DeviceLogLexical.event(text[...], line: p.line)
        }
        let speed = try number("speed")
        let course = try number("course")
        try builder.add(
            line: p.line, timestamp_s: timestamp_s, latitude: p.latitude, longitude: p.longitude,
            accuracy_m: accuracy_m, speed_mps: speed, course_deg: course, event: event)
        if let assumption { builder.ingest.assume(assumption) }
        if zoneless { builder.ingest.assume(.zonelessTimeAsUTC) }
    }
}

/// How a GPX `<hdop>` becomes a horizontal accuracy in metres (an assumption, documented).
public enum GPXAccuracy {
    /// User equivalent range error in metres by which HDOP is multiplied: accuracy_m = hdop × 5 m
    /// (GPX `<hdop>` and NMEA GGA HDOP on import; exports write hdop = accuracy / 5 m).
    ///
    /// Assumption, not a measurement: 5 m is a typical single-frequency civil GPS UERE
    /// (Kaplan & Hegarty, "Understanding GPS", UERE budgets of roughly 4–7 m). HDOP × UERE
    /// approximates a 1-sigma DRMS horizontal error, which is close to (not the same as) what
    /// iOS reports as `horizontalAccuracy`. Prefer the `horizontal_accuracy` extension when the
    /// app can log the platform's own value.
    public static let uere_m = 5.0
}

extension String {
    /// The text without leading/trailing ASCII spaces, tabs, CR and LF.
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        var s = self[...]
        while let f = s.first, isSpace(f) { s = s.dropFirst() }
        while let l = s.last, isSpace(l) { s = s.dropLast() }
        return String(s)
    }
}
