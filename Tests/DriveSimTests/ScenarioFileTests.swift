import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import DriveSim
@testable import _FenceLabSupport

@Suite struct ScenarioFileTests {
    static let base = #"""
        {"name":"t","description":"d","rulesVersion":"hysteresis-80-120-acc30","seed":1,"replicates":2,
         "fence":{"center":[52.52,13.405],"rule":{"kind":"hysteresis","enter_m":80,"exit_m":120,"maxAccuracy_m":30}},
         "route":{"kind":"stationary","distance_m":100,"bearing_deg":45},
         "sampling":{"rate_hz":1,"duration_s":60},
         "noise":{"model":"gaussian","sigma_m":8},
         "accuracy":{"model":"drms"}}
        """#

    static func decode(_ text: String) throws(ScenarioError) -> ScenarioSpec {
        try ScenarioSpec.decode(Array(text.utf8), file: "scenarios/x.json")
    }

    @Test func baseDecodes() throws {
        let s = try Self.decode(Self.base)
        #expect(s.name == "t" && s.seed == 1 && s.replicates == 2)
        #expect(s.fence.rule.derivedRulesVersion == "hysteresis-80-120-acc30")
        #expect(s.route == .stationary(distance_m: 100, bearing_deg: 45))
        #expect(s.sampling.sampleCount == 60)
        #expect(s.noise.white == .gaussian(sigma_m: 8))
        #expect(s.faults == FaultSpec())
    }

    /// `place` and `weight`: defaults, strictness and validation.
    @Test func placeAndWeight() throws {
        let none = try Self.decode(Self.base)
        #expect(none.place == nil && none.weight == 1)
        let withPlace = #""accuracy":{"model":"drms"},"place":{"radius_m":100},"weight":2.5"#
        let s = try Self.decode(Self.base.replacingOccurrences(of: #""accuracy":{"model":"drms"}"#, with: withPlace))
        #expect(s.place == PlaceSpec(radius_m: 100, minDwell_s: 0, mergeGap_s: 60))
        #expect(s.weight == 2.5)
        let full = #""accuracy":{"model":"drms"},"place":{"radius_m":150,"minDwell_s":120,"mergeGap_s":0}"#
        #expect(
            try Self.decode(Self.base.replacingOccurrences(of: #""accuracy":{"model":"drms"}"#, with: full)).place
                == PlaceSpec(radius_m: 150, minDwell_s: 120, mergeGap_s: 0))
    }

    /// (replace this, with that, expected one-line error).
    static let malformed: [(String, String, String)] = [
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"radius_m":0}"#,
            "scenarios/x.json: place.radius_m: must be finite and > 0, got 0"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"radius_m":-5}"#,
            "scenarios/x.json: place.radius_m: must be finite and > 0, got -5"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"minDwell_s":5}"#,
            "scenarios/x.json: place.radius_m: missing required key"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"radius_m":100,"minDwell_s":-1}"#,
            "scenarios/x.json: place.minDwell_s: must be finite and ≥ 0, got -1"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"radius_m":100,"mergeGap_s":-60}"#,
            "scenarios/x.json: place.mergeGap_s: must be finite and ≥ 0, got -60"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"radius_m":100,"mergeGap_s":1e999}"#,
            "scenarios/x.json: place.mergeGap_s: must be finite, got 1e999"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"place":{"radius_m":100,"radius":5}"#,
            "scenarios/x.json: place.radius: unknown key"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"weight":0"#,
            "scenarios/x.json: weight: must be finite and > 0, got 0"
        ),
        (
            #""model":"drms"}"#, #""model":"drms"},"weight":-1"#,
            "scenarios/x.json: weight: must be finite and > 0, got -1"
        ),
        (#""sigma_m":8"#, #""sigma_m":-3"#, "scenarios/x.json: noise.sigma_m: must be ≥ 0, got -3"),
        (#""sigma_m":8"#, #""sigma_m":8,"sigmaa_m":1"#, "scenarios/x.json: noise.sigmaa_m: unknown key"),
        // A misspelt required key names the typo, not the missing key.
        (#""sigma_m":8"#, #""sigmaa_m":8"#, "scenarios/x.json: noise.sigmaa_m: unknown key (did you mean sigma_m?)"),
        (#""seed":1,"#, #""Seed":1,"#, "scenarios/x.json: Seed: unknown key (did you mean seed?)"),
        (#""seed":1,"#, "", "scenarios/x.json: seed: missing required key"),
        (#""seed":1"#, #""seed":"7""#, #"scenarios/x.json: seed: expected an integer, got string "7""#),
        (#""seed":1"#, #""seed":1.5"#, "scenarios/x.json: seed: expected an integer, got number 1.5"),
        (#""rate_hz":1"#, #""rate_hz":0"#, "scenarios/x.json: sampling.rate_hz: must be > 0, got 0"),
        (#""rate_hz":1"#, #""rate_hz":-2"#, "scenarios/x.json: sampling.rate_hz: must be > 0, got -2"),
        (
            "[52.52,13.405]", "[91,13.405]",
            "scenarios/x.json: fence.center[0]: latitude must be within -90...90, got 91"
        ),
        (
            "[52.52,13.405]", "[52.52,181]",
            "scenarios/x.json: fence.center[1]: longitude must be within -180...180, got 181"
        ),
        ("[52.52,13.405]", "[52.52]", "scenarios/x.json: fence.center: expected [latitude, longitude], got an array"),
        (#""sigma_m":8"#, #""sigma_m":1e999"#, "scenarios/x.json: noise.sigma_m: must be finite, got 1e999"),
        (
            #""distance_m":100"#, #""distance_m":true"#,
            "scenarios/x.json: route.distance_m: expected a number, got true"
        ),
        (#""distance_m":100"#, #""distance_m":null"#, "scenarios/x.json: route.distance_m: missing required key"),
        (#""exit_m":120"#, #""exit_m":70"#, "scenarios/x.json: fence.rule.exit_m: must be > enter_m (80), got 70"),
        (#""seed":1,"#, #""seed":1,"seed":2,"#, "scenarios/x.json: seed: duplicate key"),
        (
            #""kind":"stationary""#, #""kind":"teleport""#,
            #"scenarios/x.json: route.kind: must be one of stationary, loiter, waypoints, tour, got "teleport""#
        ),
        (#""replicates":2"#, #""replicates":0"#, "scenarios/x.json: replicates: must be within 1...100000, got 0"),
        (
            #""rulesVersion":"hysteresis-80-120-acc30""#, #""rulesVersion":"threshold-500""#,
            #"scenarios/x.json: rulesVersion: must start with "hysteresis-" (e.g. "hysteresis-80-120-acc30"), got "threshold-500""#
        ),
        (
            #""model":"drms""#, #""model":"drms","invalidProbability":1.5"#,
            "scenarios/x.json: accuracy.invalidProbability: must be within 0...1, got 1.5"
        ),
        (
            #""model":"gaussian","sigma_m":8"#,
            #""model":"anisotropic","alongTrackSigma_m":4,"crossTrackSigma_m":9,"rho":1"#,
            "scenarios/x.json: noise.rho: must be within -1 < ρ < 1, got 1"
        ),
        (
            #""sigma_m":8"#, #""sigma_m":8,"tails":{"kind":"student-t","nu":2}"#,
            "scenarios/x.json: noise.tails.nu: must be > 2 (finite variance), got 2"
        ),
        (
            #""sigma_m":8"#, #""sigma_m":8,"bias":{"sigma_m":-1,"tau_s":60}"#,
            "scenarios/x.json: noise.bias.sigma_m: must be ≥ 0, got -1"
        ),
        (
            #""accuracy":{"model":"drms"}"#,
            #""accuracy":{"model":"drms"},"faults":{"gaps":[{"start_s":10,"duration_s":-5}]}"#,
            "scenarios/x.json: faults.gaps[0].duration_s: must be > 0, got -5"
        ),
        (
            #""accuracy":{"model":"drms"}"#,
            #""accuracy":{"model":"drms"},"faults":{"duplicate":{"probability":0.6},"invalid":{"probability":0.6}}"#,
            "scenarios/x.json: faults: per-sample fault probabilities must sum to ≤ 1, got 1.2"
        ),
        (
            #""accuracy":{"model":"drms"}"#,
            #""accuracy":{"model":"drms"},"expect":{"flutter.spurious":{"min":3,"max":1}}"#,
            "scenarios/x.json: expect.flutter.spurious.max: must be ≥ min (3), got 1"
        ),
        (
            #""accuracy":{"model":"drms"}"#, #""accuracy":{"model":"drms"},"expect":{"flutter.spurious":{}}"#,
            "scenarios/x.json: expect.flutter.spurious.min: missing required key"
        ),
        (
            #""route":{"kind":"stationary","distance_m":100,"bearing_deg":45}"#,
            #""route":{"kind":"waypoints","points":[[0,0],[0,0]],"speed":{"profile":"constant","speed_kmh":50}}"#,
            "scenarios/x.json: route.points[1]: must be distinct from and less than 179° from the previous point, got 0°"
        ),
        (
            #""route":{"kind":"stationary","distance_m":100,"bearing_deg":45}"#,
            #""route":{"kind":"waypoints","points":[[0,0],[0,1]],"speed":{"profile":"constant","speed_kmh":0}}"#,
            "scenarios/x.json: route.speed.speed_kmh: must be > 0, got 0"
        ),
        (
            #""duration_s":60"#, #""duration_s":0.5"#,
            "scenarios/x.json: sampling.duration_s: must give at least one sample at rate_hz, got 0.5"
        ),
        (
            #""maxAccuracy_m":30"#, #""maxAccuracy_m":30,"input":"smoothed""#,
            #"scenarios/x.json: fence.rule.input: must be one of raw, kalman, imm, got "smoothed""#
        ),
        (
            #""maxAccuracy_m":30"#, #""maxAccuracy_m":30,"q_m2s3":0"#,
            "scenarios/x.json: fence.rule.q_m2s3: must be > 0, got 0"
        ),
        (
            #""maxAccuracy_m":30"#, #""maxAccuracy_m":30,"q_m2s3":-1"#,
            "scenarios/x.json: fence.rule.q_m2s3: must be > 0, got -1"
        ),
        (
            #""maxAccuracy_m":30"#, #""maxAccuracy_m":30,"input":2"#,
            "scenarios/x.json: fence.rule.input: expected a string, got number 2"
        ),
    ]

    @Test func inputStageAndProcessNoiseDecode() throws {
        let plain = try Self.decode(Self.base)
        #expect(plain.fence.rule.input == .raw && plain.fence.rule.q_m2s3 == nil && plain.fence.rule.fenceInput == .raw)
        let text = Self.base.replacingOccurrences(
            of: #""maxAccuracy_m":30"#, with: #""maxAccuracy_m":30,"input":"imm","q_m2s3":0.25"#)
        let s = try Self.decode(text)
        #expect(s.fence.rule.input == .imm && s.fence.rule.q_m2s3 == 0.25)
        #expect(s.fence.rule.fenceInput == (try FenceInput(.imm, accelerationDensity_m2ps3: 0.25)))
    }

    @Test(arguments: malformed.indices)
    func malformedFileIsRefusedWithItsMessage(_ i: Int) {
        let (from, to, expected) = Self.malformed[i]
        #expect(Self.base.contains(from), "case \(i): base lacks \(from)")
        let text = Self.base.replacingOccurrences(of: from, with: to)
        do {
            _ = try Self.decode(text)
            Issue.record("case \(i) was accepted: \(to)")
        } catch {
            #expect(error.description == expected)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func brokenJSONNamesTheLine() {
        let text = "{\n\"name\": \"t\",\n\"seed\": ,\n}"
        do {
            _ = try Self.decode(text)
            Issue.record("accepted broken JSON")
        } catch {
            guard case .malformedJSON(let file, let line, _) = error else {
                Issue.record("wrong case \(error)")
                return
            }
            #expect(file == "scenarios/x.json" && line == 3)
            #expect(error.description.hasPrefix("scenarios/x.json:3: not valid JSON: "))
        }
    }

    @Test func topLevelMustBeAnObject() {
        #expect(
            throws: ScenarioError.wrongType(
                file: "scenarios/x.json", keyPath: "", expected: "an object", got: "an array")
        ) {
            try Self.decode("[1]")
        }
    }

    @Test func everyCatalogFileLoads() throws {
        let folder = TestPaths.packageRoot.appendingPathComponent("scenarios").path
        let loaded = try ScenarioSpec.loadAll(paths: [folder])
        let names = Set(loaded.map(\.spec.name))
        let expected: Set = [
            "dateline-fiji", "polar-crossing", "antipodal-fences", "tunnel-gap-highway",
            "edge-loiter-100m", "highway-seed004", "urban-canyon", "fault-storm",
        ]
        #expect(expected.isSubset(of: names), "missing: \(expected.subtracting(names))")
        #expect(loaded.map(\.path) == loaded.map(\.path).sorted())
        for l in loaded {
            #expect(!l.path.contains("/fixtures/") && !l.path.contains("/device-logs/"))
            #expect(l.sha256.count == 64)
            #expect(!l.spec.description.isEmpty)
            #expect(l.path.hasSuffix("/\(l.spec.name).json"), "file name and name differ: \(l.path)")
            #expect(l.spec.rulesVersion == l.spec.fence.rule.derivedRulesVersion)
            // Modest size: ≤ 1 h of samples at ≤ 1 Hz-equivalent, ≤ 20 replicates.
            #expect(l.spec.sampling.sampleCount <= 3600 && l.spec.replicates <= 20)
        }
    }

    @Test func missingPathIsUnreadable() {
        #expect(throws: ScenarioError.unreadable(file: "/nonexistent/x.json", reason: "no such file or folder")) {
            try ScenarioSpec.loadAll(paths: ["/nonexistent/x.json"])
        }
    }

    /// FIPS 180-4 example vectors ("abc", the empty message, the 448-bit message).
    @Test func sha256MatchesPublishedVectors() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Incremental hashing in pieces of any size equals the one-shot digest (FIPS 180-4 example above).
        let message =
            Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8) + Array(repeating: 0x61, count: 1000)
        for piece in [1, 7, 63, 64, 65, 500] {
            var hasher = SHA256.Hasher()
            var i = 0
            while i < message.count {
                let end = min(i + piece, message.count)
                message[i..<end].withUnsafeBufferPointer { hasher.update($0) }
                i = end
            }
            #expect(hasher.finalize() == SHA256.digest(message), "pieces of \(piece) bytes")
        }
    }
}
