import FenceLab
import GSLKit
import GeoPolicy
import Testing
import _TestSupport

private func t(_ time: Double, _ d: TransitionDirection) -> Transition { Transition(time_s: time, direction: d) }

@Suite struct MetricsFlutterTests {
    let timeTolerance_s = 1e-12

    @Test func transitionsSkipUnknownAndFirstDetermination() {
        let states: [StateSample] = [
            .init(time_s: 0, state: .unknown), .init(time_s: 1, state: .outside), .init(time_s: 2, state: .inside),
            .init(time_s: 3, state: .unknown), .init(time_s: 4, state: .inside), .init(time_s: 5, state: .unknown),
            .init(time_s: 6, state: .outside),
        ]
        #expect(Flutter.transitions(of: states) == [t(2, .entered), t(6, .exited)])
        #expect(Flutter.transitions(of: []).isEmpty)
    }

    @Test func perfectObservationHasNoErrors() throws {
        let truth = [t(100, .entered), t(400, .exited)]
        let m = try Flutter.measure(truth: truth, observed: truth)
        #expect(m.transitions == 2 && m.truthTransitions == 2 && m.spurious == 0 && m.missed == 0 && m.flaps == 0)
        #expect(try #require(m.latencyMedian_s) == 0)
    }

    @Test func windowBoundaryIsInclusiveAndDirectionMustMatch() throws {
        let truth = [t(100, .entered)]
        let atEdge = try Flutter.measure(truth: truth, observed: [t(160, .entered)])
        #expect(atEdge.spurious == 0 && atEdge.missed == 0)
        #expect(isClose(try #require(atEdge.latencyMedian_s), 60, absoluteTolerance: timeTolerance_s))
        let beyond = try Flutter.measure(truth: truth, observed: [t(160.001, .entered)])
        #expect(beyond.spurious == 1 && beyond.missed == 1 && beyond.latencyMedian_s == nil)
        let early = try Flutter.measure(truth: truth, observed: [t(70, .entered)])
        #expect(isClose(try #require(early.latencyMedian_s), -30, absoluteTolerance: timeTolerance_s))
        let wrongDirection = try Flutter.measure(truth: truth, observed: [t(100, .exited)])
        #expect(wrongDirection.spurious == 1 && wrongDirection.missed == 1)
    }

    @Test func eachTruthMatchedAtMostOnceGreedyEarliest() throws {
        // Flutter around one true entry: enter, exit, enter within 20 s.
        let truth = [t(100, .entered)]
        let observed = [t(95, .entered), t(105, .exited), t(110, .entered)]
        let m = try Flutter.measure(truth: truth, observed: observed)
        #expect(m.matches == [TransitionMatch(observedIndex: 0, truthIndex: 0, latency_s: -5)])
        #expect(m.spurious == 2 && m.missed == 0)
        #expect(m.flaps == 2)  // 95→105 and 105→110
        // Two same-direction truths in the window: the earlier observation takes the earlier truth.
        let two = try Flutter.measure(
            truth: [t(0, .entered), t(50, .entered)], observed: [t(40, .entered), t(45, .entered)])
        #expect(two.matches.map(\.truthIndex) == [0, 1])
        #expect(two.matches.map(\.latency_s) == [40, -5])
    }

    @Test func flapsNeedTheOppositeDirectionWithinTheWindow() throws {
        let m = try Flutter.measure(
            truth: [], observed: [t(0, .entered), t(61, .exited), t(120, .entered), t(121, .entered)])
        #expect(m.flaps == 1)  // 61 → 120 (59 s); 0 → 61 is too late; 120 → 121 same direction
        #expect(m.spurious == 4 && m.missed == 0 && m.latencyP95_s == nil)
    }

    @Test func latencyQuantilesAreType7() throws {
        let truth = (0..<5).map { i in t(Double(i) * 1000, i % 2 == 0 ? .entered : .exited) }
        let delays = [1.0, 2, 3, 4, 10]
        let observed = zip(truth, delays).map { t($0.time_s + $1, $0.direction) }
        let m = try Flutter.measure(truth: truth, observed: observed)
        #expect(isClose(try #require(m.latencyMedian_s), 3, absoluteTolerance: timeTolerance_s))
        // type 7: position 0.95·4 = 3.8 → 4 + 0.8·(10 − 4) = 8.8
        #expect(isClose(try #require(m.latencyP95_s), 8.8, absoluteTolerance: timeTolerance_s))
    }

    @Test func emptyAndBadInput() throws {
        let none = try Flutter.measure(truth: [], observed: [])
        #expect(none.transitions == 0 && none.spurious == 0 && none.missed == 0)
        let onlyTruth = try Flutter.measure(truth: [t(1, .entered)], observed: [])
        #expect(onlyTruth.missed == 1)
        #expect(throws: MetricsError.self) {
            try Flutter.measure(truth: [t(5, .entered), t(1, .exited)], observed: [])
        }
        #expect(throws: MetricsError.self) { try Flutter.measure(truth: [], observed: [t(.nan, .entered)]) }
        #expect(throws: MetricsError.self) { try Flutter.measure(truth: [], observed: [], window_s: 0) }
        do {
            _ = try Flutter.measure(truth: [], observed: [t(3, .entered), t(2, .exited)])
        } catch {
            #expect(error.description.contains("observed[1].time_s"))
        }
    }
}

@Suite struct MetricsErrorAndGapTests {
    let tolerance_m = 1e-12

    @Test func errorSummaryFigures() throws {
        let s = try #require(try ErrorSummary.of([3, 4, 0, 5, 12]))
        #expect(s.count == 5)
        #expect(isClose(s.rmse_m, (194.0 / 5).squareRoot(), absoluteTolerance: tolerance_m))
        #expect(isClose(s.p50_m, 4, absoluteTolerance: tolerance_m))
        #expect(isClose(s.p95_m, 5 + 0.8 * 7, absoluteTolerance: tolerance_m))
        #expect(s.max_m == 12)
        #expect(try ErrorSummary.of([]) == nil)
        #expect(throws: MetricsError.self) { try ErrorSummary.of([1, -1]) }
        #expect(throws: MetricsError.self) { try ErrorSummary.of([.infinity]) }
    }

    @Test func bucketBoundariesAreInclusiveAbove() throws {
        #expect(try GapBucket.of(duration_s: 0) == .upTo10s)
        #expect(try GapBucket.of(duration_s: 10) == .upTo10s)
        #expect(try GapBucket.of(duration_s: 10.5) == .from10To30s)
        #expect(try GapBucket.of(duration_s: 30) == .from10To30s)
        #expect(try GapBucket.of(duration_s: 60) == .from30To60s)
        #expect(try GapBucket.of(duration_s: 60.01) == .over60s)
        #expect(throws: MetricsError.self) { try GapBucket.of(duration_s: -1) }
        #expect(GapBucket.allCases.map(\.rawValue) == ["<=10s", "10-30s", "30-60s", ">60s"])
    }

    @Test func gapFillGroupsByMethodAndBucket() throws {
        let g = try GapFillMetrics.measure(
            [
                FilledGap(method: "linear", duration_s: 20, errors_m: [3, 4]),
                FilledGap(method: "linear", duration_s: 25, errors_m: [0]),
                FilledGap(method: "linear", duration_s: 90, errors_m: [10]),
                FilledGap(method: "hermite", duration_s: 20, errors_m: []),
            ], methods: ["cubicSpline"])
        let lin = try #require(g.byMethod["linear"])
        #expect(lin[.from10To30s]?.gaps == 2)
        #expect(
            isClose(try #require(lin[.from10To30s]?.rmse_m), (25.0 / 3).squareRoot(), absoluteTolerance: tolerance_m))
        #expect(lin[.from10To30s]?.max_m == 4)
        #expect(lin[.over60s]?.gaps == 1 && lin[.upTo10s]?.gaps == 0 && lin[.upTo10s]?.rmse_m == nil)
        #expect(g.byMethod["hermite"]?[.from10To30s] == GapBucketSummary(gaps: 1, rmse_m: nil, max_m: nil))
        #expect(g.byMethod["cubicSpline"]?.count == 4)
        #expect(throws: MetricsError.self) {
            try GapFillMetrics.measure([FilledGap(method: "x", duration_s: 20, errors_m: [.nan])])
        }
    }

    @Test func rejectionsAndFaultsCaught() {
        let m = RejectionMetrics.measure(
            rejections: [
                Rejection(fixIndex: 3, reason: "stale"), Rejection(fixIndex: 7, reason: "inaccurate"),
                Rejection(fixIndex: 8, reason: "stale"),
            ],
            faults: [
                LabelledFault(fixIndex: 3, label: "stale"), LabelledFault(fixIndex: 5, label: "stale"),
                LabelledFault(fixIndex: 7, label: "invalidValue"),
            ])
        #expect(m.byReason == ["stale": 2, "inaccurate": 1])
        #expect(m.faultsLabelled == ["stale": 2, "invalidValue": 1])
        #expect(m.faultsCaught == ["stale": 1, "invalidValue": 1])
    }
}

@Suite struct MetricsAggregationTests {
    let tolerance = 1e-9

    func replicate(spurious: Int, rmse: Double, stale: Int?) -> ReplicateMetrics {
        var flutter = try! Flutter.measure(truth: [], observed: [])
        flutter.spurious = spurious
        let rej = RejectionMetrics(byReason: stale.map { ["stale": $0] } ?? [:], faultsLabelled: [:], faultsCaught: [:])
        return ReplicateMetrics(
            flutter: flutter, rejections: rej,
            kalman: [.raw: ErrorSummary(count: 1, rmse_m: rmse, p50_m: rmse, p95_m: rmse, max_m: rmse)])
    }

    @Test func aggregateMeanAndStudentTInterval() throws {
        let a = try MetricAggregate.aggregate([
            replicate(spurious: 1, rmse: 2.1, stale: 4),
            replicate(spurious: 3, rmse: 2.4, stale: nil),
            replicate(spurious: 2, rmse: 1.9, stale: 2),
            replicate(spurious: 0, rmse: 2.6, stale: 0),
            replicate(spurious: 4, rmse: 2.2, stale: 1),
        ])
        let rmse = try #require(a.estimate("kalman.raw.rmse_m"))
        // SciPy: mean 2.24, t(0.975, 4)·s/√5 interval [1.9045208615…, 2.5754791384…]
        #expect(rmse.n == 5 && isClose(rmse.mean, 2.24, absoluteTolerance: tolerance))
        #expect(isClose(rmse.lower, 1.9045208615073341, absoluteTolerance: tolerance))
        #expect(isClose(rmse.upper, 2.5754791384926654, absoluteTolerance: tolerance))
        // Count paths: a replicate without the key counts as 0.
        let stale = try #require(a.estimate("rejections.stale"))
        #expect(stale.n == 5 && isClose(stale.mean, 7.0 / 5, absoluteTolerance: tolerance))
        #expect(a.estimate("rejections.duplicate") == Estimate(mean: 0, lower: 0, upper: 0, n: 5))
        // Absent non-count figures stay absent.
        #expect(a.estimate("flutter.latency_s.median") == nil)
    }

    /// `got` is the two-pass `Estimate.of(values)`: the same n and mean bits (GSL's running mean),
    /// interval ends within 1e-13 of its width (running vs two-pass variance).
    func expectSameEstimate(_ got: Estimate?, _ values: [Double], _ what: String) throws {
        let want = try Estimate.of(values, key: "x")
        let g = try #require(got, "\(what) missing")
        let width = max(want.upper - want.lower, 1e-300)
        #expect(g.n == want.n && g.mean.bitPattern == want.mean.bitPattern, "\(what): \(g) vs \(want)")
        #expect(abs(g.lower - want.lower) <= 1e-13 * width && abs(g.upper - want.upper) <= 1e-13 * width, "\(what)")
    }

    @Test func aggregateTakesEachPathsValuesInReplicateOrderAndRefusesNonFinite() throws {
        // A latency reported by some replicates only: the estimate is that of the reported values
        // in replicate order (gaps skipped); a count path first reported by replicate 1 and absent
        // from replicates 3 and 6 takes a 0 from each of them, replicate 0 included.
        var reps = (0..<7).map {
            replicate(spurious: $0, rmse: 1.5 + 0.37 * Double($0 * $0 % 5), stale: $0 % 3 == 0 ? nil : $0)
        }
        let latencies: [Double?] = [12.5, nil, 3.25, nil, nil, 40.0, 7.75]
        for (i, l) in latencies.enumerated() { reps[i].flutter?.latencyMedian_s = l }
        let a = try MetricAggregate.aggregate(reps)
        try expectSameEstimate(a.estimate("flutter.latency_s.median"), [12.5, 3.25, 40.0, 7.75], "latency")
        try expectSameEstimate(a.estimate("rejections.stale"), [0, 1, 2, 0, 4, 5, 0], "stale")
        try expectSameEstimate(a.estimate("kalman.raw.rmse_m"), reps.map { $0.kalman[.raw]!.rmse_m }, "rmse")
        #expect(a.replicates == 7)
        reps[4].kalman[.raw]?.rmse_m = .infinity
        do {
            _ = try MetricAggregate.aggregate(reps)
            Issue.record("an infinite RMSE was aggregated")
        } catch {
            #expect(error.description.contains("replicate[4].kalman.raw.rmse_m"))
        }
    }

    /// Replicates folded one at a time give the aggregate of all of them, the worst replicate
    /// is the largest value with the lowest index on ties, and 2 000 replicates of 60 figures
    /// each are aggregated without keeping them (the accumulator holds one column per path).
    @Test func accumulatorFoldsReplicatesAsTheyCome() throws {
        let rng = try RandomSource(seed: 13)
        var reps: [ReplicateMetrics] = []
        var accumulator = MetricAccumulator()
        for i in 0..<2_000 {
            let spurious = Int(rng.uniform() * 9)
            var r = replicate(
                spurious: i == 1_500 || i == 1_700 ? 20 : spurious, rmse: 1 + rng.uniform(),
                stale: rng.uniform() < 0.3 ? nil : Int(rng.uniform() * 5))
            if i >= 1_000 { r.rejections?.byReason["late"] = 1 }  // a count path first seen at 1 000
            reps.append(r)
            try accumulator.add(r)
        }
        #expect(accumulator.replicates == 2_000)
        #expect(accumulator.worst?.replicate == 1_500 && accumulator.worst?.value == 20)
        let folded = try accumulator.aggregate()
        #expect(folded == (try MetricAggregate.aggregate(reps)))
        try expectSameEstimate(folded.estimate("rejections.late"), (0..<2_000).map { $0 >= 1_000 ? 1 : 0 }, "late")
        try expectSameEstimate(
            folded.estimate("flutter.spurious"), reps.map { Double($0.flutter!.spurious) }, "spurious")
        #expect(ScenarioReport.worstReplicate(reps, by: "flutter.spurious") == accumulator.worst?.replicate)
    }

    @Test func expectationsUseTheMeanAndReportViolations() throws {
        let a = try MetricAggregate.aggregate([
            replicate(spurious: 1, rmse: 2, stale: 0), replicate(spurious: 2, rmse: 4, stale: 0),
        ])
        let results = try Expectations.check(
            [
                ExpectationBound(path: "flutter.spurious", max: 0),
                ExpectationBound(path: "flutter.spurious", min: 1.5, max: 1.5),
                ExpectationBound(path: "kalman.raw.rmse_m", min: 0, max: 2.9),
                ExpectationBound(path: "rejections.stale", max: 0),
                ExpectationBound(path: "flutter.latency_s.p95", max: 30),
            ], against: a)
        #expect(results.map(\.passed) == [false, true, false, true, false])
        #expect(isClose(try #require(results[0].measured).mean, 1.5, absoluteTolerance: tolerance))
        #expect(results[0].message.contains("violates max 0"))
        #expect(results[4].measured == nil && results[4].message.contains("no data"))
    }

    @Test func unknownPathIsAnErrorNamingIt() throws {
        let a = MetricAggregate(estimates: [:], replicates: 1)
        for path in ["flutter.spurius", "kalman.raw.rmse", "gapFill.linear.<=11s.gaps", "rejections.nope", "flutter"] {
            do {
                _ = try Expectations.check([ExpectationBound(path: path, max: 1)], against: a)
                Issue.record("\(path) accepted")
            } catch {
                #expect(error == .unknownMetricPath(path))
                #expect(error.description.contains(path))
            }
        }
        #expect(MetricCatalog.standard.contains("gapFill.hermite.>60s.rmse_m"))
        #expect(MetricCatalog.standard.contains("faults.caught.stale"))
        #expect(MetricCatalog.standard.contains("throughput.engineFixes_per_s"))
    }

    @Test func malformedBoundsAreRefused() {
        #expect(throws: MetricsError.self) { try ExpectationBound(path: "flutter.spurious") }
        #expect(throws: MetricsError.self) { try ExpectationBound(path: "flutter.spurious", min: 2, max: 1) }
        #expect(throws: MetricsError.self) { try ExpectationBound(path: "flutter.spurious", max: .nan) }
    }
}

@Suite struct EstimateDomainTests {
    @Test func intervalOfNonNegativeFiguresStaysNonNegative() throws {
        let e = try Estimate.of([0, 0, 0, 1, 0], key: "flutter.spurious")
        #expect(isClose(e.mean, 0.2, absoluteTolerance: 1e-12))
        #expect(e.lower == 0)
        #expect(e.upper > 0.2)
        let signed = try Estimate.of([-1, 1, 0, 2, -2], key: "signed")
        #expect(signed.lower < -1)
    }

    /// One replicate takes a shortcut: the bits of the estimate built from GSL's interval, for
    /// signed zeros, subnormals and extremes, and the same refusal of a non-finite value.
    @Test func estimateOfOneValueIsTheIntervalsEstimate() throws {
        let values: [Double] = [-0.0, 0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0.1, -7.25, 1e308, -1e308]
        for x in values {
            let got = try Estimate.of([x], key: "x")
            let mean = try Statistics.mean([x])
            let lower = x >= 0 ? max(0, mean) : mean
            #expect(got.n == 1 && got.mean.bitPattern == mean.bitPattern, "\(x)")
            #expect(got.lower.bitPattern == lower.bitPattern && got.upper.bitPattern == mean.bitPattern, "\(x)")
        }
        #expect(throws: MetricsError.self) { try Estimate.of([.nan], key: "x") }
        #expect(throws: MetricsError.self) { try Estimate.of([.infinity], key: "x") }
    }
}
