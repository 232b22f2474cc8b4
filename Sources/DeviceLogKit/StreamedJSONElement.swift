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
