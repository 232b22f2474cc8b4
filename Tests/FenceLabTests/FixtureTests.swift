import FenceLab
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@Suite struct FixtureTests {
    static var fixtureDirectory: String {
        TestPaths.packageRoot.appendingPathComponent(FixtureSuite.defaultDirectory).path
    }

    /// A fresh temporary directory holding `files` (name → JSON text).
    static func tempFixtures(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: dir.appendingPathComponent(name))
        }
        return dir.path
    }

    static let goodRuleFixture = """
        { "name": "t", "source": "test", "kind": "rule", "rule": "threshold:500", "rulesVersion": "threshold-500",
          "sequences": [ { "name": "s", "initial": "unknown",
            "steps": [ { "distance_m": 500, "accuracy_m": 5, "expect": "inside" } ] } ] }
        """

    /// Loads `text` as the only fixture and returns the error message it is refused with.
    static func refusal(_ text: String, ruleUnderTest: RuleSpec = .default) throws -> (FixtureError, String)? {
        let dir = try tempFixtures(["bad.json": text])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            _ = try FixtureSuite.load(directory: dir, ruleUnderTest: ruleUnderTest)
            return nil
        } catch {
            return (error, error.description)
        }
    }

    @Test func everyCommittedFixturePasses() throws {
        let suite = try FixtureSuite.load(directory: Self.fixtureDirectory)
        let report = suite.run()
        for failure in report.failures {
            Issue.record("\(failure)")
        }
        #expect(report.passed)
        #expect(report.checks.count >= 100)
        #expect(report.summary == "Rules fixtures: passed (\(report.checks.count) checks)")
        for version in [
            "contract-1", "hysteresis-80-120-acc30", "threshold-500", "conservative-100",
            "hysteresis-80-120-acc30+confirm3", "hysteresis-80-120-acc30+confirm10s",
        ] {
            #expect(report.rulesVersions.contains(version), "missing fixtures for \(version)")
        }
    }

    @Test func seedCasesArePresent() throws {
        let report = try FixtureSuite.load(directory: Self.fixtureDirectory).run()
        let assertions = report.checks.map(\.assertion)
        for needle in [
            "(0.0, 179.999) -> (0.0, -179.999) = 222.39 ± 0.5", "(89.9, 0.0) -> (89.9, 180.0) within 20000.0...23000.0",
            "latitude: 91.0, longitude: 0.0) is rejected", "isInside(distance_m: 500.0, radius_m: 500.0) == true",
            "isInside(distance_m: nan, radius_m: 500.0) == false", "isInside(distance_m: 0.0, radius_m: -1.0) == false",
        ] {
            #expect(assertions.contains { $0.contains(needle) }, "no check for \(needle)")
        }
    }

    @Test func aFailingCheckIsReportedWithUnroundedValues() throws {
        let wrong = Self.goodRuleFixture.replacingOccurrences(
            of: "\"distance_m\": 500,", with: "\"distance_m\": 500.0000001,")
        let dir = try Self.tempFixtures(["a.json": wrong])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try FixtureSuite.load(directory: dir).run()
        #expect(!report.passed && report.failures.count == 1)
        let failure = try #require(report.failures.first)
        #expect(failure.actual == "outside" && failure.keyPath == "sequences[0].steps[0]")
        #expect(failure.values.contains(FixtureValue("distance_m", 500.0000001)))
        #expect(failure.description.contains("500.0000001") && failure.description.contains("a.json"))
    }

    @Test func pinnedRuleWithOtherVersionIsRefused() throws {
        let text = Self.goodRuleFixture.replacingOccurrences(of: "\"threshold-500\"", with: "\"threshold-400\"")
        let (error, message) = try #require(try Self.refusal(text))
        #expect(
            error
                == .rulesVersionMismatch(
                    file: (error.fileForTest), fixtureVersion: "threshold-400",
                    ruleVersion: "threshold-500", rule: "threshold:500"))
        #expect(message.contains("bad.json") && message.contains("threshold-400") && message.contains("threshold-500"))
        #expect(message.contains("reviewed"))
    }

    @Test func ruleUnderTestWithOtherVersionIsRefused() throws {
        let seed000 = try String(contentsOfFile: Self.fixtureDirectory + "/seed000-hysteresis.json", encoding: .utf8)
        let other = try RuleSpec.parse("hysteresis:75:120:30")
        let (_, message) = try #require(try Self.refusal(seed000, ruleUnderTest: other))
        #expect(message.contains("hysteresis-80-120-acc30") && message.contains("hysteresis-75-120-acc30"))
        #expect(message.contains("rulesVersion") && message.contains("reviewed"))
    }

    @Test func unknownKeyIsRefusedWithKeyPath() throws {
        let text = Self.goodRuleFixture.replacingOccurrences(
            of: "\"accuracy_m\": 5,", with: "\"accuracy_m\": 5, \"acuracy\": 5,")
        let (error, message) = try #require(try Self.refusal(text))
        guard case .unknownKey(_, let keyPath) = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(keyPath == "sequences[0].steps[0].acuracy")
        #expect(message.contains("bad.json") && message.contains("sequences[0].steps[0].acuracy"))
    }

    @Test func wrongTypeIsRefusedWithKeyPath() throws {
        let text = Self.goodRuleFixture.replacingOccurrences(of: "\"accuracy_m\": 5,", with: "\"accuracy_m\": \"5\",")
        let (error, message) = try #require(try Self.refusal(text))
        guard case .wrongType(_, let keyPath, _, _) = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(keyPath == "sequences[0].steps[0].accuracy_m")
        #expect(message.contains("bad.json") && message.contains("accuracy_m") && message.contains("\"5\""))
    }

    @Test func missingKeyIsRefusedWithKeyPath() throws {
        let text = Self.goodRuleFixture.replacingOccurrences(of: "\"initial\": \"unknown\",", with: "")
        let (error, message) = try #require(try Self.refusal(text))
        #expect(error == .missingKey(file: error.fileForTest, keyPath: "sequences[0].initial"))
        #expect(message.contains("bad.json"))
    }

    @Test func truncatedJSONIsRefusedWithFile() throws {
        let text = String(Self.goodRuleFixture.prefix(80))
        let (error, message) = try #require(try Self.refusal(text))
        guard case .malformedJSON = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(message.contains("bad.json") && message.contains("not valid JSON"))
    }

    @Test func bareNaNIsNotJSONButTheStringIs() throws {
        let bare = Self.goodRuleFixture.replacingOccurrences(of: "\"accuracy_m\": 5,", with: "\"accuracy_m\": NaN,")
        let (error, _) = try #require(try Self.refusal(bare))
        guard case .malformedJSON = error else {
            Issue.record("got \(error)")
            return
        }
        let quoted = Self.goodRuleFixture.replacingOccurrences(
            of: "\"accuracy_m\": 5, \"expect\": \"inside\"",
            with: "\"accuracy_m\": \"NaN\", \"expect\": \"unknown\"")
        #expect(try Self.refusal(quoted) == nil)
    }

    @Test func unknownDistanceModelIsRefused() throws {
        #expect(throws: UnknownDistanceModel(name: "flat")) { try distanceModel(named: "flat") }
        let text = """
            { "name": "d", "source": "t", "kind": "contract", "rulesVersion": "contract-1",
              "distances": [ { "model": "flat", "from": [0, 0], "to": [0, 1], "expected_m": 1, "tolerance_m": 1 } ] }
            """
        let (_, message) = try #require(try Self.refusal(text))
        #expect(message.contains("distances[0].model") && message.contains("flat"))
    }

    @Test func invalidCoordinateInADistancePairIsRefused() throws {
        let text = """
            { "name": "d", "source": "t", "kind": "contract", "rulesVersion": "contract-1",
              "distances": [ { "model": "sphere", "from": [91, 0], "to": [0, 1], "min_m": 0, "max_m": 1 } ] }
            """
        let (_, message) = try #require(try Self.refusal(text))
        #expect(message.contains("distances[0].from") && message.contains("latitude"))
    }
}

extension FixtureError {
    /// The file a case names (tests compare the rest of the case exactly).
    var fileForTest: String {
        switch self {
        case .unreadable(let f, _), .malformedJSON(let f, _), .unknownKey(let f, _), .missingKey(let f, _),
            .wrongType(let f, _, _, _), .invalidValue(let f, _, _), .rulesVersionMismatch(let f, _, _, _):
            return f
        case .noFixtures(let d): return d
        }
    }
}
