import _FenceLabSupport

/// Reads OwnTracks logs: one JSON message per line, as the app publishes them or as the
/// OwnTracks Recorder stores them (`TIME\t*\t{…}` lines: the JSON after the last tab).
///
/// `"_type":"location"` messages are fixes: `lat`, `lon` (degrees), `tst` (Unix seconds), `acc`
/// (metres; absent: `--assume-accuracy`, counted, else refused naming it), `vel` (km/h → m/s),
/// `cog` (degrees). `"_type":"transition"` messages are system events at `tst`: `event`
/// `enter` or `leave` (→ exit), about the place its `desc` names (the region's name; absent: none).
/// Other message types (`waypoint`, `lwt`, `card`, `status`, …) are
/// not fixes: skipped and counted (`otherRecord`). Nested values (`inregions`) and keys not
/// listed are ignored; a malformed line, or a location without `lat`, `lon` or `tst`, is an error
/// naming the line and the key.
enum OwnTracksDeviceLogReader {
    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        var lastLine = 1
        var sawContent = false
        while let line = try lines.next({ (slice, line) throws(DeviceLogProblemAtLine) -> Int in
            if slice.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return line }
            sawContent = true
            // A Recorder line: `2026-03-01T12:00:00Z\t*   \t{...}`.
            let start = slice.lastIndex(of: 0x09).map { $0 + 1 } ?? 0
            let json = Array(slice[start...])
            let root: StrictJSON.Value
            do throws(StrictJSON.ParseError) {
                root = try StrictJSON.parse(json, limits: StrictJSON.Limits(maxBytes: json.count, maxDepth: 8))
            } catch {
                throw DeviceLogProblemAtLine(
                    line: line, problem: .json("\(error.reason) at column \(start + error.column)"))
            }
            guard case .object(let members, _) = root else {
                throw DeviceLogProblemAtLine(line: line, problem: .json("expected an OwnTracks message '{…}'"))
            }
            try message(members, line: line, into: &builder)
            return line
        }) {
            lastLine = line
        }
        if !sawContent { throw DeviceLogProblemAtLine(line: lastLine, problem: .emptyFile) }
        if builder.isEmpty {
            guard !builder.ingest.skipped.isEmpty else {
                throw DeviceLogProblemAtLine(line: lastLine, problem: .noData)
            }
            throw DeviceLogProblemAtLine(
                line: lastLine, problem: .noFix(format: .owntracks, skipped: builder.ingest.skippedText))
        }
    }

    static func message(
        _ members: [(key: String, value: StrictJSON.Value)], line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        func fail(_ p: DeviceLogProblem) -> DeviceLogProblemAtLine { DeviceLogProblemAtLine(line: line, problem: p) }
        func value(_ key: String) -> StrictJSON.Value? { members.first { $0.key == key }?.value }
        func number(_ key: String) throws(DeviceLogProblemAtLine) -> Double? {
            switch value(key) {
            case .none, .null: return nil
            case .number(let v, _, _): return v
            case .string(let s, _):
                guard let v = DeviceLogLexical.number(s[...]) else {
                    throw fail(.notANumber(column: key, value: DeviceLogLexical.shown(s)))
                }
                return v
            default: throw fail(.notANumber(column: key, value: "a non-scalar value"))
            }
        }
        func required(_ key: String) throws(DeviceLogProblemAtLine) -> Double {
            guard let v = try number(key) else { throw fail(.missingValue(column: key)) }
            return v
        }
        // `tst` is Unix seconds: a value beyond the double range ("1e999", "inf") or NaN is no time.
        func time() throws(DeviceLogProblemAtLine) -> Double {
            let v = try required("tst")
            if let p = DeviceLogProblem.nonFiniteTime(value("tst"), read: v) { throw fail(p) }
            return v
        }
        guard case .string(let type, _) = value("_type") else {
            throw fail(.missingValue(column: "_type"))
        }
        switch type {
        case "location":
            let accuracy: Double
            if let acc = try number("acc") {
                accuracy = acc
            } else if let m = builder.options.assumedAccuracy_m {
                accuracy = m
                builder.ingest.assume(.assumedAccuracy(m: m))
            } else {
                throw fail(.noAccuracy("OwnTracks: location (no \"acc\")"))
            }
            try builder.add(
                line: line, timestamp_s: try time(), latitude: try required("lat"),
                longitude: try required("lon"), accuracy_m: accuracy, speed_mps: try number("vel").map { $0 / 3.6 },
                course_deg: try number("cog"), event: nil)
        case "transition":
            guard case .string(let event, _) = value("event") else { throw fail(.missingValue(column: "event")) }
            let kind: SystemEventKind
            switch event {
            case "enter": kind = .enter
            case "leave": kind = .exit
            default:
                throw fail(.ownTracks("transition event '\(DeviceLogLexical.shown(event))' is not 'enter' or 'leave'"))
            }
            var place: String?
            if case .string(let desc, _) = value("desc"), !desc.isEmpty { place = desc }
            try builder.add(
                line: line, timestamp_s: try time(), latitude: nil, longitude: nil, accuracy_m: nil,
                speed_mps: nil, course_deg: nil, event: kind, place: place)
        default:
            builder.ingest.skip(.otherRecord, line: line)
        }
    }
}
