import GeoPolicy

/// One thing an external engine got wrong, with the fixture that shows it.
package struct EngineCheckFailure: Sendable, Hashable, CustomStringConvertible {
    package var fixture: String
    package var keyPath: String
    package var detail: String
    package var description: String { "\(fixture): \(keyPath): \(detail)" }
}

/// Result of `fencelab engine-check`.
package struct EngineCheckReport: Sendable {
    package var checks = 0
    package var failures: [EngineCheckFailure] = []
    /// Fixture sequences not applicable to the checked rule (pinned to another rule).
    package var skipped: [String] = []
    package var rulesVersion: String
    package var passed: Bool { failures.isEmpty && checks > 0 }
}

/// Conformance of an external engine: protocol behaviour, then every rule-fixture
/// sequence for the checked rule, each sequence in a fresh engine process.
///
/// A step's distance d becomes a fix on the equator at longitude d/R from a fence at
/// (0, 0), nudged by a few ulps so the haversine on R = 6 371 000 m gives exactly d:
/// boundary equality (d = 80 m → inside) is checked exactly, as seed 001 asks. Negative
/// or non-finite distances become invalid coordinates, which must change nothing too.
package enum EngineCheck {
    package static func run(
        engine: ExternalEngine, fixturesDirectory: String,
        rule: RuleSpec = .default
    ) throws -> EngineCheckReport {
        let suite = try FixtureSuite.load(directory: fixturesDirectory, ruleUnderTest: rule)
        let version = try rule.rulesVersion()
        var report = EngineCheckReport(rulesVersion: version)
        let center = try Coordinate(latitude: 0, longitude: 0)
        let fence = try EngineFence(center: center, spec: rule)

        // Protocol: an empty session answers ready and exits cleanly. An engine that cannot
        // do that (no ready line, hangs, crashes) fails here, before the sequences: each would
        // only wait for the same timeout again.
        report.checks += 1
        do { _ = try engine.run(fence: fence, fixes: [], now_s: []) } catch {
            report.failures.append(
                EngineCheckFailure(
                    fixture: "protocol", keyPath: "empty session",
                    detail: "\(error); fixture sequences not run"))
            return report
        }
        for fixture in suite.fixtures where fixture.kind == .rule {
            for check in fixture.checks {
                guard case .sequence(let keyPath, let name, let initial, let steps) = check else { continue }
                guard (try? fixture.rule?.rulesVersion()) ?? version == version else {
                    report.skipped.append("\(fixture.file): \(keyPath) (\(name))")
                    continue
                }
                runSequence(
                    engine: engine, fence: fence, file: fixture.file, keyPath: keyPath, name: name,
                    initial: initial, steps: steps, rule: rule, into: &report)
            }
        }
        return report
    }

    static func runSequence(
        engine: ExternalEngine, fence: EngineFence, file: String, keyPath: String, name: String,
        initial: FenceState, steps: [Fixture.Step], rule: RuleSpec,
        into report: inout EngineCheckReport
    ) {
        var fixes: [Fix] = []
        var t = 1_000.0
        // Bring the engine into the sequence's initial state with clearly decided fixes.
        if let primer = primingDistance(initial, rule: rule) {
            fixes.append(fix(distance_m: primer, accuracy_m: 0, timestamp_s: t))
        }
        let offset = fixes.count
        for s in steps {
            t = s.timestamp_s.isFinite && s.timestamp_s > t ? s.timestamp_s : t + 1
            fixes.append(fix(distance_m: s.distance_m, accuracy_m: s.accuracy_m, timestamp_s: t))
        }
        report.checks += steps.count
        let answers: [EngineAnswer]
        do { answers = try engine.run(fence: fence, fixes: fixes, now_s: fixes.map(\.timestamp_s)) } catch {
            report.failures.append(EngineCheckFailure(fixture: file, keyPath: keyPath, detail: "\(name): \(error)"))
            return
        }
        if offset == 1, answers[0].state != initial {
            report.failures.append(
                EngineCheckFailure(
                    fixture: file, keyPath: keyPath,
                    detail: "\(name): could not reach initial state \(initial) (engine said \(answers[0].state))"))
            return
        }
        for (i, s) in steps.enumerated() where answers[offset + i].state != s.expect {
            report.failures.append(
                EngineCheckFailure(
                    fixture: file, keyPath: "\(keyPath).steps[\(i)]",
                    detail:
                        "\(name): distance \(s.distance_m) m, accuracy \(s.accuracy_m) m: expected \(s.expect), engine said \(answers[offset + i].state)"
                ))
        }
    }

    static func primingDistance(_ state: FenceState, rule: RuleSpec) -> Double? {
        switch (state, rule) {
        case (.unknown, _): return nil
        case (.inside, _): return 0
        case (.outside, .hysteresis(_, let x, _, _)): return x * 10 + 1000
        case (.outside, .threshold(let r, _)), (.outside, .conservative(let r, _)): return r * 10 + 1000
        }
    }

    /// A fix on the equator whose haversine distance from (0, 0) is exactly `distance_m` when possible.
    static func fix(distance_m: Double, accuracy_m: Double, timestamp_s: Double) -> Fix {
        guard distance_m.isFinite, distance_m >= 0 else {
            return Fix(
                timestamp_s: timestamp_s, latitude: distance_m.isNaN ? .nan : 91, longitude: 0,
                horizontalAccuracy_m: accuracy_m)
        }
        return Fix(
            timestamp_s: timestamp_s, latitude: 0, longitude: exactLongitude(distance_m),
            horizontalAccuracy_m: accuracy_m)
    }

    static func exactLongitude(_ d: Double) -> Double {
        let start = d / EarthModel.sphereRadius_m * EarthModel.degreesPerRadian
        let model = Haversine()
        let origin = try! Coordinate(latitude: 0, longitude: 0)
        func distance(_ lon: Double) -> Double {
            model.distance_m(origin, try! Coordinate(latitude: 0, longitude: lon))
        }
        var up = start
        var down = start
        for _ in 0..<64 {
            if distance(up) == d { return up }
            if distance(down) == d { return down }
            up = up.nextUp
            down = down.nextDown
        }
        return start
    }
}
