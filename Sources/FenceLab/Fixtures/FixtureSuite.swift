import DriveSim
import Foundation
import GeoPolicy
import _FenceLabSupport

/// The rules-level fixtures in a directory, loaded strictly and ready to run.
///
/// Loading refuses unknown keys, missing keys, wrong types and a `rulesVersion`
/// that differs from the rule the file runs against (the expected results must be
/// reviewed, never silently passed). Running is deterministic and offline.
package struct FixtureSuite: Sendable {
    /// The version of the seed-001 contract that `kind: "contract"` fixtures check
    /// (degrees in, latitude first, metres out, reject never clamp, `d <= r` inside,
    /// `d ± a` conservative classification). Bump it when that contract changes.
    package static let contractVersion = "contract-1"

    /// The default fixture directory, relative to the package root.
    package static let defaultDirectory = "scenarios/fixtures"

    /// Where `fencelab accept` finds the fixtures when `--fixtures` is not given, first match wins:
    /// 1. `scenarios/fixtures` in the working directory;
    /// 2. `fixtures/` inside each scenario folder given, or next to each scenario file given
    ///    (`fencelab accept ~/repo/scenarios` from anywhere);
    /// 3. `scenarios/fixtures` in the folder of the executable or one of its five parents
    ///    (`.build/release/fencelab` inside a checkout).
    /// Returns nil when none of them is a directory.
    package static func locate(scenarioPaths: [String], executablePath: String?) -> String? {
        var candidates = [defaultDirectory]
        for path in scenarioPaths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { continue }
            let folder = isDir.boolValue ? path : (path as NSString).deletingLastPathComponent
            candidates.append(((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent("fixtures"))
        }
        if let exe = executablePath {
            var dir = URL(fileURLWithPath: exe).resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<6 {
                candidates.append(dir.appendingPathComponent(defaultDirectory).path)
                dir = dir.deletingLastPathComponent()
            }
        }
        return candidates.first { c in
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: c, isDirectory: &isDir) && isDir.boolValue
        }
    }

    let fixtures: [Fixture]

    /// The rule that rule fixtures without their own `rule` key run against.
    package let ruleUnderTest: RuleSpec

    /// Paths of the loaded files, in the order they run (sorted by name).
    package var files: [String] { fixtures.map(\.file) }

    /// Loads every `*.json` file of `directory` (not recursive), sorted by name.
    /// - Parameters:
    ///   - directory: the folder, e.g. `scenarios/fixtures`.
    ///   - ruleUnderTest: the rule for fixtures that do not pin one; default seed 000 (`hysteresis:80:120:30`).
    /// - Throws: `FixtureError` naming the file and key path of the first problem.
    package static func load(directory: String, ruleUnderTest: RuleSpec = .default) throws(FixtureError) -> FixtureSuite
    {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(file: directory, reason: "not a readable directory")
        }
        let files = names.filter { $0.hasSuffix(".json") }.sorted()
            .map { (directory as NSString).appendingPathComponent($0) }
        guard !files.isEmpty else { throw .noFixtures(directory: directory) }
        return try load(files: files, ruleUnderTest: ruleUnderTest)
    }

    /// Loads the given fixture files in the given order.
    /// - Throws: `FixtureError` naming the file and key path of the first problem.
    package static func load(files: [String], ruleUnderTest: RuleSpec = .default) throws(FixtureError) -> FixtureSuite {
        var fixtures: [Fixture] = []
        for file in files {
            // A regular file only, at most the strict JSON reader's 16 MiB (`InputFileReader`).
            let bytes: [UInt8]
            do {
                bytes = try InputFileReader.readAll(path: file, limit_bytes: StrictJSON.Limits.standard.maxBytes)
            } catch {
                throw .unreadable(file: file, reason: error.description)
            }
            let json = try ParsedJSON.parse(bytes, file: file)
            fixtures.append(try Fixture.parse(json, file: file, ruleUnderTest: ruleUnderTest))
        }
        return FixtureSuite(fixtures: fixtures, ruleUnderTest: ruleUnderTest)
    }

    /// Runs every check of every file.
    package func run() -> FixtureReport {
        var results: [FixtureCheckResult] = []
        var seconds: [Double] = []
        var summaries: [FixtureFileSummary] = []
        let clock = ContinuousClock()
        for fixture in fixtures {
            for check in fixture.checks {
                // Each result's time: from the end of the previous result (or the check's start) to its own.
                var mark = clock.now
                let before = results.count
                FixtureSuite.run(check, of: fixture, into: &results) {
                    let now = clock.now
                    let d = (now - mark).components
                    seconds.append(Double(d.seconds) + Double(d.attoseconds) * 1e-18)
                    mark = now
                }
                precondition(seconds.count == results.count && results.count >= before)
            }
            summaries.append(
                FixtureFileSummary(
                    file: fixture.file, name: fixture.name,
                    rulesVersion: fixture.rulesVersion,
                    rule: fixture.rule?.description))
        }
        return FixtureReport(checks: results, files: summaries, checkSeconds: seconds)
    }

    /// Runs one check, appending a result per assertion; `recorded` is called after each append.
    static func run(
        _ check: Fixture.Check, of f: Fixture, into results: inout [FixtureCheckResult],
        recorded: () -> Void = {}
    ) {
        func add(_ keyPath: String, _ assertion: String, _ passed: Bool, _ actual: String, _ values: [FixtureValue]) {
            results.append(
                FixtureCheckResult(
                    file: f.file, keyPath: keyPath, rulesVersion: f.rulesVersion,
                    assertion: assertion, passed: passed, actual: actual, values: values))
            recorded()
        }
        switch check {
        case .distance(
            let keyPath, let modelName, let from, let to, let expected, let tolerance, let lo, let hi, let symmetry):
            // The model name was validated at load time.
            guard let model = try? distanceModel(named: modelName) else { return }
            let d = model.distance_m(from, to)
            let pair = "\(modelName) distance \(from) -> \(to)"
            if let expected, let tolerance {
                add(
                    keyPath, "\(pair) = \(expected) ± \(tolerance) m", Swift.abs(d - expected) <= tolerance,
                    "\(d) m", [FixtureValue("distance_m", d), FixtureValue("error_m", d - expected)])
            }
            if let lo, let hi {
                add(
                    keyPath, "\(pair) within \(lo)...\(hi) m", d >= lo && d <= hi, "\(d) m",
                    [FixtureValue("distance_m", d)])
            }
            if let symmetry {
                let back = model.distance_m(to, from)
                add(
                    keyPath + ".symmetryTolerance_m", "\(pair) symmetric within \(symmetry) m",
                    Swift.abs(d - back) <= symmetry, "\(d - back) m difference",
                    [FixtureValue("distance_m", d), FixtureValue("reverse_m", back)])
            }
        case .coordinate(let keyPath, let lat, let lon, let expect):
            let actual: String
            do {
                _ = try Coordinate(latitude: lat, longitude: lon)
                actual = "valid"
            } catch {
                switch error {
                case .notFinite: actual = "notFinite"
                case .latitudeOutOfRange: actual = "latitudeOutOfRange"
                case .longitudeOutOfRange: actual = "longitudeOutOfRange"
                }
            }
            let assertion =
                expect == "valid"
                ? "Coordinate(latitude: \(lat), longitude: \(lon)) is valid"
                : "Coordinate(latitude: \(lat), longitude: \(lon)) is rejected as \(expect)"
            add(
                keyPath, assertion, actual == expect, actual,
                [FixtureValue("latitude", lat), FixtureValue("longitude", lon)])
        case .isInside(let keyPath, let d, let r, let expect):
            let got = Threshold.isInside(distance_m: d, radius_m: r)
            add(
                keyPath, "isInside(distance_m: \(d), radius_m: \(r)) == \(expect)", got == expect, "\(got)",
                [FixtureValue("distance_m", d), FixtureValue("radius_m", r)])
        case .classify(let keyPath, let d, let a, let r, let expect):
            let got = Conservative.classify(distance_m: d, accuracy_m: a, radius_m: r)
            add(
                keyPath, "Conservative.classify(distance_m: \(d), accuracy_m: \(a), radius_m: \(r)) == \(expect)",
                got == expect, got.rawValue,
                [FixtureValue("distance_m", d), FixtureValue("accuracy_m", a), FixtureValue("radius_m", r)])
        case .sequence(let keyPath, let name, let initial, let steps):
            // The spec was validated (and its version matched) at load time.
            guard let spec = f.rule, var evaluator = try? spec.evaluator(initial: initial) else { return }
            for (i, step) in steps.enumerated() {
                let before = evaluator.state
                let got = evaluator.update(
                    distance_m: step.distance_m, accuracy_m: step.accuracy_m,
                    timestamp_s: step.timestamp_s)
                add(
                    "\(keyPath).steps[\(i)]",
                    "'\(name)' step \(i): \(before) + (distance_m \(step.distance_m), accuracy_m \(step.accuracy_m), "
                        + "timestamp_s \(step.timestamp_s)) -> \(step.expect)",
                    got == step.expect, got.rawValue,
                    [FixtureValue("distance_m", step.distance_m), FixtureValue("accuracy_m", step.accuracy_m)])
            }
        }
    }
}
