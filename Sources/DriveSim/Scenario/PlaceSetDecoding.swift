import GeoPolicy
import _FenceLabSupport

extension ScenarioSpec {
    /// Largest place file read, in bytes (16 MiB: 10⁵ CSV lines of a long name fit).
    public static let maxPlaceFileSize_bytes = 16 << 20

    /// `places`: exactly one of `list`, `file` or `generate`, with `minDwell_s` and `mergeGap_s`.
    /// A relative `file` is read from the folder of `scenarioFile`.
    static func decodePlaces(
        _ r: inout ObjectReader, rule: FenceRuleSpec, scenarioFile: String
    ) throws(ScenarioError) -> PlaceSetSpec {
        let given = ["list", "file", "generate"].filter { r.has($0) }
        guard given.count == 1 else {
            throw .invalidValue(
                file: r.file, keyPath: r.path, requirement: "needs exactly one of list, file, generate",
                got: given.isEmpty ? "none" : given.joined(separator: ", "))
        }
        var places: [NamedPlace]
        var source: String
        var file: (path: String, sha256: String)?
        if let items = try r.optionalArray("list") {
            source = "inline"
            places = []
            for (i, v) in items.enumerated() {
                var p = try ObjectReader(v, file: r.file, path: r.keyPath("list") + "[\(i)]")
                places.append(try decodeInlinePlace(&p, rule: rule))
            }
            try checkPlaces(places, file: r.file, keyPath: r.keyPath("list"))
        } else if let path = try r.optionalString("file") {
            source = "file"
            let resolved = resolve(path, relativeTo: scenarioFile)
            (places, file) = try readPlaceFile(resolved, rule: rule)
        } else {
            var g = try r.object("generate")
            (places, source) = try PlaceSetGenerator.decode(&g, rule: rule)
        }
        let dwell = try r.optionalDouble("minDwell_s") ?? PlaceSpec.defaultMinDwell_s
        try r.check(dwell >= 0, "minDwell_s", "must be finite and ≥ 0", dwell)
        let gap = try r.optionalDouble("mergeGap_s") ?? PlaceSpec.defaultMergeGap_s
        try r.check(gap >= 0, "mergeGap_s", "must be finite and ≥ 0", gap)
        var monitoring = MonitoringStrategy.all
        if let text = try r.optionalString("monitoring") {
            do { monitoring = try MonitoringStrategy.parse(text) } catch {
                throw .invalidSpec(file: r.file, keyPath: r.keyPath("monitoring"), reason: error.description)
            }
        }
        try r.finish()
        var set = PlaceSetSpec(places: places, minDwell_s: dwell, mergeGap_s: gap, source: source)
        set.monitoring = monitoring
        set.file = file
        return set
    }

    /// A place file path as written, resolved against the scenario file's folder when relative.
    static func resolve(_ path: String, relativeTo scenarioFile: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = scenarioFile.lastIndex(of: "/") else { return path }
        return String(scenarioFile[...slash]) + path
    }

    /// One `places.list` entry: `name`, `center`, `radius_m`, optional `enter_m`/`exit_m`, `weight`.
    static func decodeInlinePlace(_ p: inout ObjectReader, rule: FenceRuleSpec) throws(ScenarioError) -> NamedPlace {
        let name = try p.string("name")
        let center = try coordinate(try p.value("center"), reader: p, at: p.keyPath("center"))
        let radius = try p.double("radius_m")
        let enter = try p.optionalDouble("enter_m")
        let exit = try p.optionalDouble("exit_m")
        let weight = try p.optionalDouble("weight") ?? 1
        try p.finish()
        let place = NamedPlace(
            name: name, center: center, radius_m: radius, enter_m: enter, exit_m: exit, weight: weight)
        if let (key, reason) = placeProblem(place, rule: rule) {
            throw .invalidPlaceFile(file: p.file, line: 0, key: p.keyPath(key), reason: reason)
        }
        return place
    }

    /// What is wrong with one place (the key and the reason), or nil.
    static func placeProblem(_ p: NamedPlace, rule: FenceRuleSpec) -> (String, String)? {
        if p.name.isEmpty || p.name.unicodeScalars.count > PlaceSetSpec.maxNameLength
            || p.name.unicodeScalars.contains(where: ShownText.isControl)
        {
            return (
                "name",
                "must be 1 to \(PlaceSetSpec.maxNameLength) characters without control characters, got \"\(ShownText.shown(p.name, limit: 40))\""
            )
        }
        guard p.radius_m.isFinite, p.radius_m > 0 else {
            return ("radius_m", "must be finite and > 0, got \(formatNumber(p.radius_m))")
        }
        guard p.weight.isFinite, p.weight > 0 else {
            return ("weight", "must be finite and > 0, got \(formatNumber(p.weight))")
        }
        switch (p.enter_m, p.exit_m) {
        case (nil, nil): return nil
        case (nil, _?): return ("enter_m", "must be given with exit_m")
        case (_?, nil): return ("exit_m", "must be given with enter_m")
        case (let e?, let x?):
            guard e.isFinite, e >= 0 else { return ("enter_m", "must be finite and ≥ 0, got \(formatNumber(e))") }
            guard x.isFinite else { return ("exit_m", "must be finite, got \(formatNumber(x))") }
            if case .hysteresis = rule.kind {
                if x <= e { return ("exit_m", "must be > enter_m (\(formatNumber(e))), got \(formatNumber(x))") }
            } else if x != e {
                return (
                    "exit_m",
                    "must equal enter_m (\(formatNumber(e))) for a \(rule.kindName) rule, got \(formatNumber(x))"
                )
            }
            return nil
        }
    }

    /// Unique names, 1 … 10⁵ places.
    static func checkPlaces(_ places: [NamedPlace], file: String, keyPath: String) throws(ScenarioError) {
        guard !places.isEmpty else {
            throw .invalidPlaceFile(file: file, line: 0, key: keyPath, reason: "needs at least one place")
        }
        guard places.count <= PlaceSetSpec.maxPlaces else {
            throw .invalidPlaceFile(
                file: file, line: 0, key: keyPath,
                reason: "at most \(PlaceSetSpec.maxPlaces) places, got \(places.count)")
        }
        var seen: [String: Int] = [:]
        for (i, p) in places.enumerated() {
            if let first = seen[p.name] {
                throw .invalidPlaceFile(
                    file: file, line: 0, key: "\(keyPath)[\(i)].name",
                    reason: "duplicate place name \"\(ShownText.shown(p.name, limit: 40))\" (first at [\(first)])")
            }
            seen[p.name] = i
        }
    }

    // MARK: place files

    /// A place file: `*.csv` (below) or `*.geojson` / `*.json` (a FeatureCollection of Points).
    /// Returns the places and the file's path and SHA-256 (lowercase hex).
    static func readPlaceFile(
        _ path: String, rule: FenceRuleSpec
    ) throws(ScenarioError) -> ([NamedPlace], (path: String, sha256: String)) {
        let bytes: [UInt8]
        do { bytes = try InputFileReader.readAll(path: path, limit_bytes: maxPlaceFileSize_bytes) } catch {
            switch error {
            case .tooLarge:
                throw .unreadable(file: path, reason: "larger than the 16 MiB limit for a place file")
            default: throw .unreadable(file: path, reason: error.description)
            }
        }
        let lower = path.lowercased()
        let hash = (path: path, sha256: SHA256.hex(bytes))
        if lower.hasSuffix(".csv") { return (try placesFromCSV(bytes, file: path, rule: rule), hash) }
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") {
            return (try placesFromGeoJSON(bytes, file: path, rule: rule), hash)
        }
        throw .invalidPlaceFile(
            file: path, line: 0, key: "", reason: "a place file must end in .csv, .geojson or .json")
    }

    /// The CSV columns: `name,lat,lon,radius_m`, then optionally `enter_m,exit_m`, then optionally `weight`.
    static let placeCSVHeaders = [
        "name,lat,lon,radius_m", "name,lat,lon,radius_m,enter_m,exit_m", "name,lat,lon,radius_m,weight",
        "name,lat,lon,radius_m,enter_m,exit_m,weight",
    ]

    /// CSV place file: a header line (one of `placeCSVHeaders`), then one place a line; fields are
    /// split at commas (no quoting), numbers in decimal notation; LF or CRLF line ends.
    static func placesFromCSV(_ bytes: [UInt8], file: String, rule: FenceRuleSpec) throws(ScenarioError) -> [NamedPlace]
    {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidPlaceFile(file: file, line: 0, key: "", reason: "not UTF-8")
        }
        // Split on LF in the scalars: Swift's characters fuse CR LF into one.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
            Substring($0.last == "\r" ? $0.dropLast() : $0)
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let header = lines.first else {
            throw .invalidPlaceFile(file: file, line: 1, key: "", reason: "missing header line")
        }
        guard placeCSVHeaders.contains(String(header)) else {
            throw .invalidPlaceFile(
                file: file, line: 1, key: "header", reason: "must be name,lat,lon,radius_m[,enter_m,exit_m][,weight]")
        }
        let columns = header.split(separator: ",").map(String.init)
        guard lines.count - 1 <= PlaceSetSpec.maxPlaces else {
            throw .invalidPlaceFile(
                file: file, line: PlaceSetSpec.maxPlaces + 2, key: "",
                reason: "at most \(PlaceSetSpec.maxPlaces) places")
        }
        var places: [NamedPlace] = []
        places.reserveCapacity(lines.count - 1)
        var seen: [String: Int] = [:]
        for (i, line) in lines.enumerated().dropFirst() {
            let n = i + 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == columns.count else {
                throw .invalidPlaceFile(
                    file: file, line: n, key: "", reason: "expected \(columns.count) fields, got \(fields.count)")
            }
            var values: [Double] = []
            for (key, field) in zip(columns.dropFirst(), fields.dropFirst()) {
                guard let x = strictDecimal(field) else {
                    throw .invalidPlaceFile(
                        file: file, line: n, key: key,
                        reason: "expected a decimal number, got \"\(ShownText.shown(String(field), limit: 40))\"")
                }
                values.append(x)
            }
            let name = String(fields[0])
            let lat = values[0]
            let lon = values[1]
            guard lat >= -90, lat <= 90 else {
                throw .invalidPlaceFile(
                    file: file, line: n, key: "lat", reason: "must be within -90...90, got \(formatNumber(lat))")
            }
            guard lon >= -180, lon <= 180, let center = try? Coordinate(latitude: lat, longitude: lon) else {
                throw .invalidPlaceFile(
                    file: file, line: n, key: "lon", reason: "must be within -180...180, got \(formatNumber(lon))")
            }
            let hasRadii = columns.contains("enter_m")
            let place = NamedPlace(
                name: name, center: center, radius_m: values[2], enter_m: hasRadii ? values[3] : nil,
                exit_m: hasRadii ? values[4] : nil, weight: columns.last == "weight" ? values[values.count - 1] : 1)
            if let (key, reason) = placeProblem(place, rule: rule) {
                throw .invalidPlaceFile(file: file, line: n, key: key, reason: reason)
            }
            if let first = seen[name] {
                throw .invalidPlaceFile(
                    file: file, line: n, key: "name",
                    reason: "duplicate place name \"\(ShownText.shown(name, limit: 40))\" (first on line \(first))")
            }
            seen[name] = n
            places.append(place)
        }
        guard !places.isEmpty else {
            throw .invalidPlaceFile(file: file, line: 0, key: "", reason: "needs at least one place")
        }
        return places
    }

    /// A number in plain decimal notation (`-12.5`, `3e2`); nil for anything else (`nan`, `0x1`, ``).
    static func strictDecimal(_ s: Substring) -> Double? {
        var digits = 0
        var i = s.utf8.startIndex
        let u = s.utf8
        if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
        while i < u.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(u[i]) {
            digits += 1
            i = u.index(after: i)
        }
        if i < u.endIndex, u[i] == UInt8(ascii: ".") {
            i = u.index(after: i)
            while i < u.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(u[i]) {
                digits += 1
                i = u.index(after: i)
            }
        }
        guard digits > 0 else { return nil }
        if i < u.endIndex, u[i] == UInt8(ascii: "e") || u[i] == UInt8(ascii: "E") {
            i = u.index(after: i)
            if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
            var exponentDigits = 0
            while i < u.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(u[i]) {
                exponentDigits += 1
                i = u.index(after: i)
            }
            guard exponentDigits > 0 else { return nil }
        }
        guard i == u.endIndex, let x = Double(s), x.isFinite else { return nil }
        return x
    }

    /// GeoJSON place file: a FeatureCollection whose features are Points (`[lon, lat]`) with
    /// `properties` `name` and `radius_m`, optionally `enter_m` and `exit_m`, and `weight`.
    static func placesFromGeoJSON(
        _ bytes: [UInt8], file: String, rule: FenceRuleSpec
    ) throws(ScenarioError) -> [NamedPlace] {
        let root: StrictJSON.Value
        do { root = try StrictJSON.parse(bytes) } catch {
            let at = "column \(error.column)" + (error.keyPath.isEmpty ? "" : ", at \(error.keyPath)")
            throw .malformedJSON(file: file, line: error.line, reason: "\(error.reason) (\(at))")
        }
        var r = try ObjectReader(root, file: file, path: "")
        guard try r.string("type") == "FeatureCollection" else {
            throw .invalidValue(file: file, keyPath: "type", requirement: "must be FeatureCollection", got: "other")
        }
        let features = try r.array("features")
        try r.finish()
        guard features.count <= PlaceSetSpec.maxPlaces else {
            throw .invalidPlaceFile(
                file: file, line: 0, key: "features",
                reason: "at most \(PlaceSetSpec.maxPlaces) places, got \(features.count)")
        }
        var places: [NamedPlace] = []
        places.reserveCapacity(features.count)
        for (i, v) in features.enumerated() {
            let at = "features[\(i)]"
            var f = try ObjectReader(v, file: file, path: at)
            _ = try f.choice("type", ["Feature"])
            _ = f.optionalValue("id")
            var g = try f.object("geometry")
            _ = try g.choice("type", ["Point"])
            let position = try g.array("coordinates")
            guard position.count == 2 else {
                throw .invalidPlaceFile(
                    file: file, line: v.line, key: "\(at).geometry.coordinates",
                    reason: "expected [longitude, latitude], got \(position.count) numbers")
            }
            let lon = try g.number(position[0], at: "\(at).geometry.coordinates[0]")
            let lat = try g.number(position[1], at: "\(at).geometry.coordinates[1]")
            try g.finish()
            guard lat >= -90, lat <= 90, lon >= -180, lon <= 180,
                let center = try? Coordinate(latitude: lat, longitude: lon)
            else {
                throw .invalidPlaceFile(
                    file: file, line: v.line, key: "\(at).geometry.coordinates",
                    reason: "must be a longitude within -180...180 and a latitude within -90...90")
            }
            var p = try f.object("properties")
            let name = try p.string("name")
            let place = NamedPlace(
                name: name, center: center, radius_m: try p.double("radius_m"),
                enter_m: try p.optionalDouble("enter_m"),
                exit_m: try p.optionalDouble("exit_m"), weight: try p.optionalDouble("weight") ?? 1)
            try p.finish()
            try f.finish()
            if let (key, reason) = placeProblem(place, rule: rule) {
                throw .invalidPlaceFile(file: file, line: v.line, key: "\(at).properties.\(key)", reason: reason)
            }
            places.append(place)
        }
        try checkPlaces(places, file: file, keyPath: "features")
        return places
    }
}

extension StrictJSON.Value {
    /// The 1-based line the value starts on.
    var line: Int {
        switch self {
        case .object(_, let l), .array(_, let l), .number(_, _, let l), .string(_, let l), .bool(_, let l),
            .null(let l):
            return l
        }
    }
}

extension ScenarioSpec {
    /// `route.kind: tour`: `stops` (≥ 2 objects `{place, dwell_s}` naming places of `places`) and
    /// `speed_kmh`: standing at the first place's centre for its `dwell_s`, then along great circles
    /// from centre to centre at a constant speed, standing `dwell_s` at each, and at the last one
    /// (which has no `dwell_s`) to the end of the drive.
    static func decodeTour(_ r: inout ObjectReader, places: PlaceSetSpec?) throws(ScenarioError) -> WaypointRouteSpec {
        guard let places else {
            throw .invalidValue(
                file: r.file, keyPath: r.keyPath("kind"), requirement: "a tour needs a places set", got: "\"tour\"")
        }
        let items = try r.array("stops")
        let p = r.keyPath("stops")
        guard items.count >= 2 else {
            throw .invalidValue(file: r.file, keyPath: p, requirement: "needs at least 2 stops", got: "\(items.count)")
        }
        let speed = try r.positive("speed_kmh") * 1000 / 3600
        var points: [Coordinate] = []
        var dwells: [Double] = []
        var names: [String] = []
        for (i, v) in items.enumerated() {
            var s = try ObjectReader(v, file: r.file, path: "\(p)[\(i)]")
            let name = try s.string("place")
            guard let index = places.index(of: name) else {
                throw .invalidValue(
                    file: r.file, keyPath: s.keyPath("place"), requirement: "must name a place of places",
                    got: "\"\(ShownText.shown(name, limit: 40))\"")
            }
            var dwell = 0.0
            if i < items.count - 1 {
                dwell = try s.nonNegative("dwell_s")
            } else if s.has("dwell_s") {
                throw .invalidValue(
                    file: r.file, keyPath: s.keyPath("dwell_s"),
                    requirement: "must be absent: the last stop lasts to the end of the drive", got: "a value")
            }
            try s.finish()
            let c = places.places[index].center
            if let last = points.last {
                let angle_deg =
                    Haversine.centralAngle_rad(
                        latitude1: last.latitude, longitude1: last.longitude,
                        latitude2: c.latitude, longitude2: c.longitude) * EarthModel.degreesPerRadian
                guard angle_deg > 1e-9, angle_deg < 179 else {
                    throw .invalidValue(
                        file: r.file, keyPath: s.keyPath("place"),
                        requirement: "must lie apart from and less than 179° from the previous stop",
                        got: "\(formatNumber(angle_deg))°")
                }
            }
            points.append(c)
            dwells.append(dwell)
            names.append(name)
        }
        var w = WaypointRouteSpec(
            points: points, speed: .constant(speed_mps: speed, variation_mps: 0, variationTau_s: 60),
            depart_s: dwells[0])
        w.stopDwell_s = Array(dwells.dropFirst().dropLast())
        w.tourPlaces = names
        return w
    }
}
