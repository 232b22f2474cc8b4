/// What `RuleLab.run` measured: the aggregated figures of one scenario, each replicate's
/// figures, and the full `RunReport` (the same one `fencelab run` writes).
///
/// Metric paths are the names of docs/metrics.md (`MetricCatalog.standard`): `flutter.spurious`,
/// `flutter.transitions`, `flutter.missed`, `flutter.flaps`, `flutter.latency_s.median`,
/// `rejections.inaccurate`, `kalman.filtered.rmse_m`, `gapFill.linear.10-30s.rmse_m`, ...
public struct LabResult: Sendable {
    /// The whole report: run metadata (tool, commit, toolchain, seeds, rules version) and
    /// the scenario's aggregated metrics; `writeReports(to:)` renders it.
    package let report: RunReport
    /// Each replicate's figures, in replicate order (≈ 1.8 kB each, held for `values(_:)`;
    /// `fencelab run`, which does not need them, aggregates without keeping them).
    package let replicateMetrics: [ReplicateMetrics]
    /// Length of each replicate in seconds (the scenario's `sampling.duration_s`).
    public let duration_s: Double
    /// Spurious transitions per hour of drive: `flutter.spurious` × 3600 / `duration_s`,
    /// mean and 95 % interval over replicates.
    public let spuriousPerHour: Estimate

    init(report: RunReport, replicates: [ReplicateMetrics], duration_s: Double) throws(LabError) {
        self.report = report
        self.replicateMetrics = replicates
        self.duration_s = duration_s
        let perHour = replicates.compactMap { $0.flutter.map { Double($0.spurious) * 3600 / duration_s } }
        do { spuriousPerHour = try Estimate.of(perHour, key: "spuriousPerHour") } catch {
            throw .noData(path: "flutter.spurious")
        }
    }

    /// The scenario's report (name, rules version, seed, aggregated metrics, expectations).
    package var scenario: ScenarioReport { report.scenarios[0] }
    /// The rules version of the rule that decided (rule + confirmation).
    public var rulesVersion: String { scenario.rulesVersion }
    /// Number of replicates run.
    public var replicates: Int { scenario.replicates }
    /// True when the scenario's own `expect` bounds hold (always true under
    /// `RulesVersionPolicy.override`, where they are not checked).
    public var passed: Bool { report.passed }

    /// Mean and 95 % interval of a metric over replicates.
    /// - Parameter path: a metric path, e.g. `flutter.spurious`.
    /// - Throws: `LabError.unknownMetric` for a path the catalogue does not know (a typo),
    ///   `LabError.noData` when no replicate measured it.
    public func estimate(_ path: String) throws(LabError) -> Estimate {
        guard MetricCatalog.standard.contains(path) else { throw .unknownMetric(path: path) }
        guard let e = scenario.metrics.estimate(path) else { throw .noData(path: path) }
        return e
    }

    /// The replicate mean of a metric (what scenario `expect` bounds compare with).
    /// - Throws: as `estimate(_:)`.
    public func mean(_ path: String) throws(LabError) -> Double {
        try estimate(path).mean
    }

    /// The metric of each replicate that measured it, in replicate order; count metrics
    /// (`rejections.*`, `faults.*`) are 0 where a replicate saw none.
    /// - Throws: `LabError.unknownMetric` for a path the catalogue does not know.
    public func values(_ path: String) throws(LabError) -> [Double] {
        guard MetricCatalog.standard.contains(path) else { throw .unknownMetric(path: path) }
        let zero = MetricCatalog.absentMeansZero(path)
        return replicateMetrics.compactMap { $0.flattened()[path] ?? (zero ? 0 : nil) }
    }

    /// Writes `report.json`, `report.md`, `junit.xml` and `index.html` into `folder`
    /// atomically (temporary name, then rename), as `fencelab run --out` does.
    /// - Throws: `LabError.output` naming the folder.
    public func writeReports(to folder: String) throws(LabError) {
        do { try ReportWriter.write(report, to: folder) } catch {
            throw .output(folder: folder, reason: error.description)
        }
    }
}
