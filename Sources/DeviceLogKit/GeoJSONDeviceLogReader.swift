import _FenceLabSupport

/// Reads GeoJSON (RFC 7946) FeatureCollections of timed points, scanned feature by feature like
/// Google Records (`GoogleRecordsDeviceLogReader.scan`: one feature held, never the document).
///
/// A feature whose geometry is a `Point` `[lon, lat]` (a third, altitude, value is ignored) is a
/// fix when its `properties` hold a time: `time` or `timestamp` (ISO-8601 with zone, or Unix
/// seconds as a number). Accuracy from `properties.accuracy` or `properties.horizontal_accuracy`
/// (metres), else `--assume-accuracy` (counted), else the file is refused naming it; `speed`
/// (m/s) and `course` or `bearing` (degrees) when present. A Point without a time
/// (`untimedFeature`) and a feature of another geometry (`notAPoint`: lines, polygons, a null
/// geometry) are not fixes: skipped and counted. A malformed feature is an error naming its line.
enum GeoJSONDeviceLogReader {
    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        try GoogleRecordsDeviceLogReader.scan(&lines, arrayKey: "features", into: &builder) {
            (bytes, line, builder) throws(DeviceLogProblemAtLine) in
            try feature(bytes, line: line, into: &builder)
        }
        if builder.isEmpty {
            guard !builder.ingest.skipped.isEmpty else {
                throw DeviceLogProblemAtLine(line: 1, problem: .geoJSON("no feature in \"features\""))
            }
            throw DeviceLogProblemAtLine(
                line: 1, problem: .noFix(format: .geojson, skipped: builder.ingest.skippedText))
        }
    }

    static func feature(
        _ bytes: [UInt8], line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        func fail(_ p: DeviceLogProblem) -> DeviceLogProblemAtLine { DeviceLogProblemAtLine(line: line, problem: p) }
        let root = try StreamedJSONElement.parse(bytes, line: line, what: "a feature")
        func member(_ v: StrictJSON.Value?, _ key: String) -> StrictJSON.Value? {
            guard case .object(let members, _)? = v else { return nil }
            return members.first { $0.key == key }?.value
        }
        guard case .object = root else { throw fail(.json("a feature is not an object")) }
        let geometry = member(root, "geometry")
        guard case .string("Point", _)? = member(geometry, "type") else {
            builder.ingest.skip(.notAPoint, line: line)
            return
        }
        guard case .array(let coordinates, _)? = member(geometry, "coordinates"), coordinates.count >= 2,
            case .number(let lon, _, _) = coordinates[0], case .number(let lat, _, _) = coordinates[1]
        else { throw fail(.geoJSON("a Point's coordinates are not [longitude, latitude]")) }
        let properties = member(root, "properties")
        func number(_ keys: String...) throws(DeviceLogProblemAtLine) -> Double? {
            for key in keys {
                switch member(properties, key) {
                case .none, .null?: continue
                case .number(let v, _, _)?: return v
                default: throw fail(.notANumber(column: "properties.\(key)", value: "a non-number"))
                }
            }
            return nil
        }
        let timestamp_s: Double
        let time = member(properties, "time") ?? member(properties, "timestamp")
        switch time {
        case .string(let text, _)?:
            switch DeviceLogLexical.timestamp(text[...]) {
            case .success(let t): timestamp_s = t
            case .failure(let p): throw fail(.badTimestamp(value: DeviceLogLexical.shown(text), reason: p.reason))
            }
        case .number(let t, _, _)?:
            if let p = DeviceLogProblem.nonFiniteTime(time, read: t) { throw fail(p) }
            timestamp_s = t
        case .none, .null?:
            builder.ingest.skip(.untimedFeature, line: line)
            return
        default: throw fail(.badTimestamp(value: "a non-scalar value", reason: "must be a string or a number"))
        }
        var accuracy = try number("accuracy", "horizontal_accuracy")
        if accuracy == nil {
            guard let m = builder.options.assumedAccuracy_m else {
                throw fail(.noAccuracy("GeoJSON: Point (no properties.accuracy)"))
            }
            accuracy = m
            builder.ingest.assume(.assumedAccuracy(m: m))
        }
        try builder.add(
            line: line, timestamp_s: timestamp_s, latitude: lat, longitude: lon, accuracy_m: accuracy,
            speed_mps: try number("speed"), course_deg: try number("course", "bearing"), event: nil)
    }
}
