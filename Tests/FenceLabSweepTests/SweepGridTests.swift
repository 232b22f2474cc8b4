import FenceLab
import FenceLabSweep
import Foundation
import GeoPolicy
import Testing
import _FenceLabSupport

@Suite struct SweepGridTests {
    /// Found by fuzz/targets/cli_options.swift (timeouts): the grid was enumerated before the
    /// limit was checked. The count is now exact without enumerating, and a huge grid is refused at once.
    @Test func pointCountIsExactAndHugeGridsAreRefusedWithoutEnumerating() throws {
        let cases: [(SweepRange, SweepRange, [Double], [Int])] = [
            (
                try SweepRange(parsing: "60:100:10", option: "e"), try SweepRange(parsing: "90:130:10", option: "x"),
                [30, 30, 50], [1, 3]
            ),
            (
                try SweepRange(parsing: "80:80:1", option: "e"), try SweepRange(parsing: "120:120:1", option: "x"),
                [30], [1]
            ),
            (try SweepRange(parsing: "0:50:5", option: "e"), try SweepRange(parsing: "0:50:5", option: "x"), [10], [1]),
        ]
        for (e, x, a, c) in cases {
            let grid = try SweepGrid(kind: .hysteresis, enter: e, exit: x, maxAccuracy: a, confirm: c, limit: nil)
            #expect(
                SweepGrid.pointCount(kind: .hysteresis, enter: e, exit: x, maxAccuracy: a, confirm: c)
                    == grid.points.count)
        }
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            _ = try SweepGrid(
                kind: .hysteresis, enter: try SweepRange(parsing: "0:100:10", option: "--enter"),
                exit: try SweepRange(parsing: "101:100100.8:0.2", option: "--exit"),
                maxAccuracy: [30], confirm: [1])
        } throws: { error in
            guard case SweepGridError.tooManyPoints(let count, let limit) = error else { return false }
            return count >= 5_500_000 && count <= 5_500_001 && limit == 2_000  // 11 × 500 000 (+ the reference)
        }
        #expect(start.duration(to: clock.now) < .seconds(5))
    }

    /// Found by fuzz/targets/cli_options.swift: option text with line breaks or control
    /// characters was echoed raw, so the error spanned several lines.
    @Test func errorsEchoOptionTextOnOneBoundedLine() {
        let hostile = "0:100:1e1\n\u{1B}[2J" + String(repeating: "x", count: 10_000)
        #expect {
            _ = try SweepRange(parsing: hostile, option: "--exit")
        } throws: { error in
            let text = "\(error)"
            return !text.contains("\n") && !text.contains("\u{1B}") && text.count < 200
        }
        #expect {
            _ = try Shard(parsing: "1\n/2")
        } throws: { !"\($0)".contains("\n") }
    }

    @Test func rangesIncludeBothEndsWithoutDrift() throws {
        #expect(try SweepRange(parsing: "60:100:10", option: "--enter").values == [60, 70, 80, 90, 100])
        let fine = try SweepRange(parsing: "0:1:0.1", option: "--enter").values
        #expect(fine.count == 11)
        #expect(abs(fine[10] - 1) < 1e-12)
    }

    @Test(arguments: ["60:100", "a:b:c", "60:100:0", "60:100:-5", "100:60:10", "60:100:nan"])
    func badRangesAreRefused(text: String) {
        #expect(throws: SweepGridError.self) { try SweepRange(parsing: text, option: "--enter") }
    }

    @Test func hysteresisGridDropsInvalidPairsAndAlwaysHasTheSeedSetting() throws {
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(parsing: "60:100:20", option: "--enter"),
            exit: SweepRange(parsing: "90:130:20", option: "--exit"), maxAccuracy: [25, 50], confirm: [1])
        #expect(grid.points.allSatisfy { $0.exit_m > $0.enter_m })
        // valid (enter, exit): (60,90) (60,110) (60,130) (80,90) (80,110) (80,130) (100,110) (100,130) = 8, × 2 accuracies, + 80/120/30
        #expect(grid.points.count == 17)
        let ref = try #require(grid.referenceIndex)
        #expect(grid.points[ref].label == "hysteresis 80/120 acc30 confirm1")
        #expect(grid.points == grid.points.sorted())
    }

    /// The label is the text the interpolation below spells out, for every kind, stage and
    /// kind of number (integral, fractional, negative zero, huge, non-finite).
    @Test func labelsSpellTheSettingForEveryKindAndStage() {
        func text(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : "\(v)" }
        let numbers: [Double] = [0, -0.0, 1, 80, 120.5, 1e-5, 999_999_999_999_999, 1e15, -3, .infinity, .nan]
        var checked = 0
        for (i, x) in numbers.enumerated() {
            for kind in SweepRuleKind.allCases {
                for input in FenceInput.Kind.allCases {
                    for seconds in [nil, 10, x] as [Double?] {
                        var p = SweepPoint(
                            kind: kind, enter_m: x, exit_m: numbers[(i + 3) % numbers.count],
                            maxAccuracy_m: numbers[(i + 5) % numbers.count], confirm_n: i + 1, input: input,
                            q_m2s3: numbers[(i + 7) % numbers.count], confirm_s: seconds)
                        p.notify = i % 2 == 0 ? "dwell:60" : nil
                        p.sampling = i % 3 == 0 ? "interval:60" : nil
                        let stage =
                            (input == .raw ? "" : " \(input.rawValue) q\(text(p.q_m2s3))")
                            + (p.notify.map { " notify:" + $0 } ?? "") + (p.sampling.map { " @" + $0 } ?? "")
                        let rule =
                            kind == .hysteresis
                            ? "hysteresis \(text(x))/\(text(p.exit_m)) acc\(text(p.maxAccuracy_m))"
                            : "\(kind.rawValue) \(text(x))"
                        let expected =
                            rule + " confirm\(i + 1)" + (p.confirm_s.map { "+\(text($0))s" } ?? "") + stage
                        #expect(p.label == expected)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == numbers.count * SweepRuleKind.allCases.count * FenceInput.Kind.allCases.count * 3)
    }

    /// Inputs cross every rule setting (a filtered input once per q); the raw points keep their
    /// order in front of the filtered ones of the same setting; q ≤ 0 or non-finite is refused.
    @Test func inputsAndProcessNoiseCrossEverySetting() throws {
        let enter = try SweepRange(parsing: "60:80:20", option: "--enter")
        let exit = SweepRange(values: [120])
        let raw = try SweepGrid(kind: .hysteresis, enter: enter, exit: exit, maxAccuracy: [30], confirm: [1])
        let grid = try SweepGrid(
            kind: .hysteresis, enter: enter, exit: exit, maxAccuracy: [30], confirm: [1],
            inputs: [.raw, .kalman, .imm], kalmanQ: [0.5, 2])
        // (60,120) and (80,120), each raw + kalman×2 + imm×2; the seeds' 80/120/30 is the raw (80,120).
        #expect(grid.points.count == 10)
        #expect(grid.points == grid.points.sorted())
        #expect(grid.points.filter { $0.input == .raw } == raw.points)
        let p = try #require(grid.points.first { $0.input == .imm && $0.q_m2s3 == 0.5 && $0.enter_m == 60 })
        #expect(p.label == "hysteresis 60/120 acc30 confirm1 imm q0.5")
        #expect(p.setupDescription == "hysteresis:60:120:30+imm:0.5")
        #expect(grid.points[try #require(grid.referenceIndex)] == .seedReference)
        for q in [0, -1, Double.nan, .infinity] {
            #expect(throws: SweepGridError.self) {
                try SweepGrid(
                    kind: .hysteresis, enter: enter, exit: exit, maxAccuracy: [30], confirm: [1], inputs: [.kalman],
                    kalmanQ: [q])
            }
        }
    }

    /// The command line's text form: defaults 30 m and 1 fix, exit ignored outside hysteresis,
    /// whole numbers of fixes only.
    @Test func gridFromText() throws {
        let grid = try SweepGrid(
            parsing: .hysteresis, enter: "80:80:10", exit: "120:140:20", maxAccuracy: nil, confirm: "1,2", limit: nil)
        #expect(Set(grid.points.map(\.maxAccuracy_m)) == [30])
        #expect(Set(grid.points.map(\.confirm_n)) == [1, 2])
        #expect(Set(grid.points.map(\.exit_m)) == [120, 140])
        let threshold = try SweepGrid(
            parsing: .threshold, enter: "100:100:1", exit: "1:2:1", maxAccuracy: nil, confirm: nil, limit: nil)
        #expect(threshold.points.filter { $0.kind == .threshold }.map(\.enter_m) == [100])
        #expect(throws: SweepGridError.malformedList(option: "--confirm", text: "1.5 (whole numbers of fixes)")) {
            try SweepGrid(
                parsing: .hysteresis, enter: "80:80:10", exit: "120:120:1", maxAccuracy: nil, confirm: "1.5", limit: nil
            )
        }
        // NaN and ±∞ parse as numbers: refused as bad values (exit 2), not as malformed text (64).
        #expect(throws: SweepGridError.nonFinite(option: "--enter", text: "50:120:nan")) {
            try SweepGrid(
                parsing: .hysteresis, enter: "50:120:nan", exit: "120:140:20", maxAccuracy: nil, confirm: nil,
                limit: nil)
        }
        #expect(throws: SweepGridError.nonFinite(option: "--max-accuracy", text: "30,inf")) {
            try SweepGrid(
                parsing: .hysteresis, enter: "80:80:10", exit: "120:140:20", maxAccuracy: "30,inf", confirm: nil,
                limit: nil)
        }
        #expect(throws: SweepGridError.malformedList(option: "--max-accuracy", text: "30,x")) {
            try SweepGrid(
                parsing: .hysteresis, enter: "80:80:10", exit: "120:140:20", maxAccuracy: "30,x", confirm: nil,
                limit: nil)
        }
    }

    @Test func gridThatIsAllInvalidOrTooLargeIsRefused() {
        #expect(throws: SweepGridError.self) {
            try SweepGrid(
                kind: .hysteresis, enter: SweepRange(values: [100]), exit: SweepRange(values: [90]), maxAccuracy: [30],
                confirm: [1])
        }
        #expect(throws: SweepGridError.tooManyPoints(count: 101, limit: 50)) {
            try SweepGrid(
                kind: .hysteresis, enter: SweepRange(values: Array(stride(from: 0.0, to: 100, by: 1))),
                exit: SweepRange(values: [200]), maxAccuracy: [30], confirm: [1], limit: 50)
        }
    }

    /// The rule parts are checked once each; a grid with an invalid one still names the first
    /// invalid setting in point order, and a valid grid builds every point.
    @Test func invalidRulePartNamesTheFirstInvalidSetting() throws {
        do {
            _ = try SweepGrid(
                kind: .hysteresis, enter: SweepRange(values: [50, 60]), exit: SweepRange(values: [120, .infinity]),
                maxAccuracy: [20, 30], confirm: [1, 3])
            Issue.record("a grid with an infinite exit radius was built")
        } catch {
            guard case .invalidValue(let option, let value, let reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(option == "--enter/--exit")
            #expect(value == 50)
            #expect(reason.contains("exit_m"), "\(reason)")
        }
        #expect(throws: SweepGridError.self) {
            try SweepGrid(
                kind: .threshold, enter: SweepRange(values: [100, .infinity]), exit: nil, maxAccuracy: [30],
                confirm: [1])
        }
        let grid = try SweepGrid(
            kind: .hysteresis, enter: SweepRange(values: [50, 60]), exit: SweepRange(values: [55, 120]),
            maxAccuracy: [20, 30], confirm: [1, 3])
        // Exit radii above the enter radius: (50, 55), (50, 120), (60, 120), × 2 gates × 2
        // confirmations, and the seeds' setting.
        #expect(grid.points.count == 13)
    }

    @Test func shardsPartitionTheItems() throws {
        for n in [1, 2, 3, 7] {
            var seen = Array(repeating: 0, count: 100)
            for k in 0..<n {
                let shard = try Shard(parsing: "\(k)/\(n)")
                for i in 0..<100 where shard.owns(i) { seen[i] += 1 }
            }
            #expect(seen.allSatisfy { $0 == 1 })
        }
        for bad in ["3/3", "-1/2", "1", "a/b", "0/0"] {
            #expect(throws: SweepGridError.self) { try Shard(parsing: bad) }
        }
    }

    @Test func flutterFrontier() {
        let pts = [
            TradeOffPoint(id: 0, spurious: 4, latency_s: 5, missed: 0, band_m: 20),
            TradeOffPoint(id: 1, spurious: 1, latency_s: 20, missed: 0, band_m: 40),
            TradeOffPoint(id: 2, spurious: 1, latency_s: 25, missed: 0, band_m: 40),  // dominated by 1
            TradeOffPoint(id: 3, spurious: 0, latency_s: 80, missed: 0, band_m: 80),
            TradeOffPoint(id: 4, spurious: 0, latency_s: 10, missed: 1, band_m: 60),  // on frontier (missed trade-off)
            TradeOffPoint(id: 5, spurious: 1, latency_s: 20, missed: 0, band_m: 30),  // ties 1, narrower band
        ]
        let f = TradeOff.frontier(pts)
        #expect(f == [0, 1, 3, 4, 5])
    }
}

/// `--force` lifts every limit: only memory refuses a grid then.
@Suite struct SweepGridMemoryTests {
    static func budget(_ bytes: UInt64) -> MemoryBudget { MemoryBudget(available_bytes: bytes, boundBy: "ulimit -v") }

    @Test func forceLeavesOnlyTheMemoryCheck() throws {
        // Past the former hidden 10⁷-point limit: admitted when the memory is there.
        try SweepGrid.admit(count: 11_000_000, limit: nil, budget: Self.budget(1 << 40))
        try SweepGrid.admit(count: 11_000_000, limit: nil, budget: nil)
        #expect(throws: SweepGridError.tooManyPoints(count: 2_001, limit: 2_000)) {
            try SweepGrid.admit(count: 2_001, limit: 2_000, budget: Self.budget(1 << 40))
        }
        #expect {
            try SweepGrid.admit(count: 11_000_000, limit: nil, budget: Self.budget(600_000_000))
        } throws: { error in
            guard case SweepGridError.notEnoughMemory(_, let needed, let each, _, _) = error else { return false }
            return each == SweepGrid.bytesPerPoint && needed == 11_000_000 * Double(each)
                && "\(error)".contains("the grid has 11000000 points: the sweep would need about 1.1 GB of memory")
                && "\(error)".contains("more than the 600 MB that ulimit -v leaves")
        }
    }

    @Test func theBudgetIsReadOnLinux() throws {
        try #require(FileManager.default.fileExists(atPath: "/proc/meminfo"), "SKIPPED: no /proc/meminfo here")
        let budget = try #require(MemoryBudget.current())
        #expect(budget.available_bytes > 0)
    }
}
