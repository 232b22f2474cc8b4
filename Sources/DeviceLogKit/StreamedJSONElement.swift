import _FenceLabSupport

/// One element of a large JSON document read element by element (a GeoJSON feature, a
/// Records.json location): parsed by the one strict reader, at most 16 levels deep.
enum StreamedJSONElement {
    /// - Throws: the parse error at `line`, naming `what` ("a feature").
    static func parse(_ bytes: [UInt8], line: Int, what: String) throws(DeviceLogProblemAtLine) -> StrictJSON.Value {
        do throws(StrictJSON.ParseError) {
            return try StrictJSON.parse(bytes, limits: StrictJSON.Limits(maxBytes: bytes.count, maxDepth: 16))
        } catch {
            throw DeviceLogProblemAtLine(line: line, problem: .json("\(error.reason) in \(what)"))
        }
    }
}

extension DeviceLogProblem {
    /// The refusal of a Unix time read from a JSON value (OwnTracks `tst`, GeoJSON `time`, Google
    /// Records `timestampMs`) as `v` when it is not finite (`1e999` reads as infinity, `"nan"` as
    /// NaN), showing the value as written; nil for a finite time.
    static func nonFiniteTime(_ value: StrictJSON.Value?, read v: Double, unit: String = "seconds") -> DeviceLogProblem?
    {
        guard !v.isFinite else { return nil }
        return .badTimestamp(
            value: DeviceLogLexical.shown(value?.scalarText ?? "\(v)"),
            reason: DeviceLogLexical.notFinite(unit: unit).reason)
    }
}
