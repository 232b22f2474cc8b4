import GeoPolicy

/// One parsed fixture file: its header and the checks it asks for.
struct Fixture: Sendable {
    /// What the file checks and therefore what its `rulesVersion` is compared with.
    enum Kind: String, Sendable {
        /// Pure seed-001 functions: distance, coordinate validation, `isInside`, conservative classification.
        case contract
        /// Decision sequences run through a rule (pinned by `rule` or the rule under test).
        case rule
    }

    struct Step: Sendable {
        var distance_m: Double
        var accuracy_m: Double
        var timestamp_s: Double
        var expect: FenceState
    }

    enum Check: Sendable {
        case distance(
            keyPath: String, model: String, from: Coordinate, to: Coordinate,
            expected_m: Double?, tolerance_m: Double?, min_m: Double?, max_m: Double?,
            symmetryTolerance_m: Double?)
        case coordinate(keyPath: String, latitude: Double, longitude: Double, expect: String)
        case isInside(keyPath: String, distance_m: Double, radius_m: Double, expect: Bool)
        case classify(keyPath: String, distance_m: Double, accuracy_m: Double, radius_m: Double, expect: FenceState)
        case sequence(keyPath: String, name: String, initial: FenceState, steps: [Step])
    }

    let file: String
    let name: String
    let kind: Kind
    let rulesVersion: String
    /// The rule sequences run against (rule fixtures only).
    let rule: RuleSpec?
    let checks: [Check]

    static let headerKeys: Set<String> = ["name", "source", "kind", "rulesVersion"]

    /// Parses and validates one file against the format in `scenarios/fixtures/README.md`.
    /// - Parameter ruleUnderTest: the rule for rule fixtures that do not pin a `rule`.
    static func parse(_ root: ParsedJSON, file: String, ruleUnderTest: RuleSpec) throws(FixtureError) -> Fixture {
        guard case .object(let top) = root else {
            throw .wrongType(file: file, keyPath: "(top level)", expected: "an object", found: root.typeName)
        }
        guard let kindValue = top["kind"] else { throw .missingKey(file: file, keyPath: "kind") }
        guard case .string(let kindText) = kindValue else {
            throw .wrongType(file: file, keyPath: "kind", expected: "a string", found: kindValue.typeName)
        }
        guard let kind = Kind(rawValue: kindText) else {
            throw .invalidValue(
                file: file, keyPath: "kind", reason: "expected \"contract\" or \"rule\", got \"\(kindText)\"")
        }
        switch kind {
        case .contract: return try parseContract(root, file: file)
        case .rule: return try parseRule(root, file: file, ruleUnderTest: ruleUnderTest)
        }
    }

    private static func parseContract(_ root: ParsedJSON, file: String) throws(FixtureError) -> Fixture {
        let o = try JSONObject(
            root, file: file, path: "",
            allowed: headerKeys.union(["distances", "coordinates", "isInside", "classify"]))
        let name = try o.string("name")
        _ = try o.string("source")
        let version = try o.string("rulesVersion")
        guard version == FixtureSuite.contractVersion else {
            throw .rulesVersionMismatch(
                file: file, fixtureVersion: version, ruleVersion: FixtureSuite.contractVersion,
                rule: "the seed-001 distance and boundary contract")
        }
        var checks: [Check] = []
        if o.has("distances") {
            for d in try o.objects(
                "distances",
                allowed: [
                    "name", "model", "from", "to", "expected_m", "tolerance_m",
                    "min_m", "max_m", "symmetryTolerance_m",
                ])
            {
                checks.append(try parseDistance(d))
            }
        }
        if o.has("coordinates") {
            for c in try o.objects("coordinates", allowed: ["latitude", "longitude", "expect"]) {
                let expect = try c.string("expect")
                guard ["valid", "notFinite", "latitudeOutOfRange", "longitudeOutOfRange"].contains(expect) else {
                    throw .invalidValue(
                        file: file, keyPath: c.keyPath("expect"),
                        reason:
                            "expected valid, notFinite, latitudeOutOfRange or longitudeOutOfRange, got \"\(expect)\"")
                }
                checks.append(
                    .coordinate(
                        keyPath: c.path, latitude: try c.number("latitude", special: true),
                        longitude: try c.number("longitude", special: true), expect: expect))
            }
        }
        if o.has("isInside") {
            for c in try o.objects("isInside", allowed: ["distance_m", "radius_m", "expect"]) {
                checks.append(
                    .isInside(
                        keyPath: c.path, distance_m: try c.number("distance_m", special: true),
                        radius_m: try c.number("radius_m", special: true), expect: try c.bool("expect")))
            }
        }
        if o.has("classify") {
            for c in try o.objects("classify", allowed: ["distance_m", "accuracy_m", "radius_m", "expect"]) {
                checks.append(
                    .classify(
                        keyPath: c.path, distance_m: try c.number("distance_m", special: true),
                        accuracy_m: try c.number("accuracy_m", special: true),
                        radius_m: try c.number("radius_m", special: true),
                        expect: FenceState(rawValue: try c.state("expect"))!))
            }
        }
        guard !checks.isEmpty else {
            throw .missingKey(file: file, keyPath: "distances|coordinates|isInside|classify")
        }
        return Fixture(file: file, name: name, kind: .contract, rulesVersion: version, rule: nil, checks: checks)
    }

    private static func parseDistance(_ d: JSONObject) throws(FixtureError) -> Check {
        let file = d.file
        _ = try d.optionalString("name")
        let model = try d.string("model")
        do { _ = try distanceModel(named: model) } catch {
            throw .invalidValue(file: file, keyPath: d.keyPath("model"), reason: error.description)
        }
        func coordinate(_ key: String) throws(FixtureError) -> Coordinate {
            let (lat, lon) = try d.pair(key)
            do { return try Coordinate(latitude: lat, longitude: lon) } catch {
                throw .invalidValue(file: file, keyPath: d.keyPath(key), reason: error.description)
            }
        }
        let expected = try d.optionalNumber("expected_m")
        let tolerance = try d.optionalNumber("tolerance_m")
        let lo = try d.optionalNumber("min_m")
        let hi = try d.optionalNumber("max_m")
        let symmetry = try d.optionalNumber("symmetryTolerance_m")
        guard (expected == nil) == (tolerance == nil), (lo == nil) == (hi == nil), expected != nil || lo != nil else {
            throw .missingKey(file: file, keyPath: d.path + ".{expected_m and tolerance_m | min_m and max_m}")
        }
        for (key, v) in [("tolerance_m", tolerance), ("symmetryTolerance_m", symmetry)] {
            if let v, v < 0 {
                throw .invalidValue(file: file, keyPath: d.keyPath(key), reason: "must be >= 0, got \(v)")
            }
        }
        if let lo, let hi, lo > hi {
            throw .invalidValue(file: file, keyPath: d.keyPath("max_m"), reason: "max_m (\(hi)) is below min_m (\(lo))")
        }
        return .distance(
            keyPath: d.path, model: model, from: try coordinate("from"), to: try coordinate("to"),
            expected_m: expected, tolerance_m: tolerance, min_m: lo, max_m: hi, symmetryTolerance_m: symmetry)
    }

    private static func parseRule(
        _ root: ParsedJSON, file: String, ruleUnderTest: RuleSpec
    ) throws(FixtureError) -> Fixture {
        let o = try JSONObject(root, file: file, path: "", allowed: headerKeys.union(["rule", "sequences"]))
        let name = try o.string("name")
        _ = try o.string("source")
        let version = try o.string("rulesVersion")
        var spec = ruleUnderTest
        if let text = try o.optionalString("rule") {
            do { spec = try RuleSpec.parse(text) } catch {
                throw .invalidValue(file: file, keyPath: "rule", reason: error.description)
            }
        }
        let ruleVersion: String
        do { ruleVersion = try spec.rulesVersion() } catch {
            throw .invalidValue(file: file, keyPath: "rule", reason: "rule \(spec): \(error)")
        }
        guard ruleVersion == version else {
            throw .rulesVersionMismatch(
                file: file, fixtureVersion: version, ruleVersion: ruleVersion, rule: spec.description)
        }
        var checks: [Check] = []
        for s in try o.objects("sequences", allowed: ["name", "initial", "steps"]) {
            let initial = FenceState(rawValue: try s.state("initial"))!
            var steps: [Step] = []
            for (i, step) in try s.objects("steps", allowed: ["distance_m", "accuracy_m", "timestamp_s", "expect"])
                .enumerated()
            {
                steps.append(
                    Step(
                        distance_m: try step.number("distance_m", special: true),
                        accuracy_m: try step.number("accuracy_m", special: true),
                        timestamp_s: try step.optionalNumber("timestamp_s") ?? Double(i),
                        expect: FenceState(rawValue: try step.state("expect"))!))
            }
            guard !steps.isEmpty else {
                throw .invalidValue(file: file, keyPath: s.keyPath("steps"), reason: "needs at least one step")
            }
            checks.append(.sequence(keyPath: s.path, name: try s.string("name"), initial: initial, steps: steps))
        }
        guard !checks.isEmpty else {
            throw .invalidValue(file: file, keyPath: "sequences", reason: "needs at least one sequence")
        }
        return Fixture(file: file, name: name, kind: .rule, rulesVersion: version, rule: spec, checks: checks)
    }
}
