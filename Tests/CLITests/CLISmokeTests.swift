import Foundation
import Testing
import _TestSupport

@Suite struct CLISmokeTests {
    @Test func versionAndHelp() throws {
        let v = try runFencelab(["--version"])
        #expect(v.status == 0)
        #expect(v.stdout.hasPrefix("fencelab "))
        let h = try runFencelab(["--help"])
        #expect(h.status == 0)
        #expect(h.stdout.contains("distance"))
    }

    @Test func unknownCommandIsUsageError() throws {
        let r = try runFencelab(["frobnicate"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("frobnicate"))
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "fencelab: unknown command 'frobnicate'; see `fencelab --help`\n", "\(r.stderr)")
    }

    /// Commands get a did-you-mean, as options do; the exit code stays 64 (usage).
    @Test func misspeltCommandGetsASuggestion() throws {
        let r = try runFencelab(["swep"])
        #expect(r.status == 64 && r.stdout.isEmpty)
        #expect(
            r.stderr == "fencelab: unknown command 'swep' (did you mean sweep?); see `fencelab --help`\n", "\(r.stderr)"
        )
        for (typo, meant) in [("calibrat", "calibrate"), ("acept", "accept"), ("replya", "replay"), ("merg", "merge")] {
            let t = try runFencelab([typo])
            #expect(t.status == 64 && t.stderr.contains("(did you mean \(meant)?)"), "\(typo): \(t.stderr)")
        }
    }

    @Test func distanceAcrossDateLine() throws {
        let r = try runFencelab(["distance", "0", "179.999", "0", "-179.999"])
        #expect(r.status == 0)
        let metres = try #require(Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(isClose(metres, 222.39, absoluteTolerance: 0.5))
    }

    @Test func invalidLatitudeIsBadInput() throws {
        let r = try runFencelab(["distance", "91", "0", "0", "0"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("latitude"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }
}

@Suite struct EngineCLITests {
    @Test func referenceEnginesPassAndBrokenBoundaryIsNamed() throws {
        let good = try runFencelab(["engine-check", "python3 Examples/engines/seed_rules.py"])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("Engine check: passed"))
        let builtIn = try runFencelab(["engine-check", "'\(TestPaths.product("fencelab").path)' engine-serve"])
        #expect(builtIn.status == 0, "\(builtIn.stdout)\(builtIn.stderr)")
        let broken = try runFencelab(["engine-check", "python3 Examples/engines/broken_boundary.py"])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("seed000-hysteresis.json: sequences[0].steps[6]"))
        #expect(broken.stdout.contains("expected inside, engine said outside"))
    }

    @Test func crashingEngineFailsTheCheckWithReason() throws {
        let r = try runFencelab(["engine-check", "exit 7"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("status 7"))
    }

    @Test func engineServeRefusesMalformedInput() throws {
        let r = try runFencelab(
            ["engine-serve"],
            stdin: Data(
                "{\"type\":\"fence\",\"protocol\":1,\"center\":[0,0],\"rule\":{\"kind\":\"hysteresis\",\"enter_m\":80,\"exit_m\":120,\"maxAccuracy_m\":30}}\nnot json\n"
                    .utf8))
        #expect(r.status == 2)
        #expect(r.stderr.contains("line 2"))
    }
}
