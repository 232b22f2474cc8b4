import DeviceLogKit
import Foundation
import ReportKit
import _FenceLabSupport

/// calibration.json (schema below, documented in docs/calibration.md) and the summary lines
/// `fencelab calibrate` prints. No coordinates: residuals are offsets, and none are written.
package enum CalibrationReport {
    /// Version of the calibration.json layout; bumped when a key changes meaning or disappears.
    package static let schema = "fencelab-calibration/2"

    /// Reference coverages of the reported accuracy for 2-D isotropic Gaussian noise: with honest
    /// DRMS a, P(r ≤ a) = 1 − e^(−1); with DRMS under-reported 2×, P(r ≤ a/2) = 1 − e^(−1/4).
    package static let honestDRMSCoverage = 1 - exp(-1.0)
    package static let underReported2xCoverage = 1 - exp(-0.25)

    /// The files of a calibration folder; an existing folder holding only these may be replaced.
    package static let fileNames: Set<String> = ["calibration.html", "calibration.json"]

    /// Checks before the (slow) fit that `destination` can be written (see `ReportFolder.preflight`).
    package static func preflight(_ destination: String) throws(OutputError) {
        try ReportFolder.preflight(destination: destination, replaceable: fileNames)
    }

    /// Writes calibration.html and calibration.json into `destination`, atomically.
    package static func write(_ r: CalibrationResult, to destination: String) throws(OutputError) {
        try ReportFolder.write(
            files: [
                ("calibration.html", Array(CalibrationHTML.render(r).utf8)),
                ("calibration.json", Array((json(r).serialized() + "\n").utf8)),
            ],
            to: destination, replaceable: fileNames)
    }

    static func value(_ v: FittedValue) -> JSONValue {
        .object([
            ("value", .number(v.value)), ("low95", .number(v.lower)), ("high95", .number(v.upper)),
            ("method", .string(v.method)),
        ])
    }

    static func optional(_ v: FittedValue?) -> JSONValue { v.map(value) ?? .null }

    /// The whole document.
    package static func json(_ r: CalibrationResult) -> JSONValue {
        let e = r.estimate
        let a = r.accounting
        let g = r.goodness
        let m = e.models
        let i = e.intervals
        let fixes: JSONValue = .object([
            ("read", .integer(a.read)), ("used", .integer(a.used)),
            (
                "dropped",
                .object([
                    ("nonFiniteTime", .integer(a.nonFiniteTime)), ("invalidCoordinate", .integer(a.invalidCoordinate)),
                    ("invalidAccuracy", .integer(a.invalidAccuracy)),
                    ("duplicateTimestamp", .integer(a.duplicateTimestamp)),
                    ("outOfOrder", .integer(a.outOfOrder)), ("rejectedByFilter", .integer(a.rejectedByFilter)),
                ])
            ),
            (
                "interval_s",
                .object([
                    ("median", .number(a.medianInterval_s)), ("p05", .number(a.interval5_s)),
                    ("p95", .number(a.interval95_s)),
                ])
            ),
            (
                "gaps",
                .object([
                    ("threshold_s", .number(a.gapThreshold_s)), ("count", .integer(a.gaps)),
                    ("longest_s", .number(a.longestGap_s)),
                ])
            ),
        ])
        let models: JSONValue = .object([
            ("selected", .string(m.selected.rawValue)),
            ("selectedBecause", .string(m.selectedBecause)),
            ("likelihoodRatio", .number(m.likelihoodRatio)),
            ("selectionThreshold", .number(GaussMarkovFit.selectionThreshold)),
            ("white", .object([("sigma_m", value(m.whiteSigma_m)), ("logLikelihood", .number(m.whiteLogLikelihood))])),
            (
                "whiteGaussMarkov",
                .object([
                    ("whiteSigma_m", optional(m.gmWhiteSigma_m)), ("biasSigma_m", optional(m.gmBiasSigma_m)),
                    ("tau_s", optional(m.gmTau_s)), ("logLikelihood", .number(m.gmLogLikelihood)),
                    ("notIdentifiable", m.gmNotIdentifiable.map(JSONValue.string) ?? .null),
                ])
            ),
        ])
        let nuInterval: JSONValue =
            e.studentNu == nil
            ? .null
            : .object([
                ("value", .number(e.studentNu!)), ("low95", .number(nu(i.whiteExcessKurtosis.upper))),
                (
                    "high95",
                    i.whiteExcessKurtosis.lower > NoiseCalibrator.kurtosisThreshold
                        ? .number(nu(i.whiteExcessKurtosis.lower)) : .string("inf")
                ),
                ("method", .string("block bootstrap of the excess kurtosis")),
            ])
        let moments: JSONValue = .object([
            ("perAxisSigma_m", value(i.perAxisSigma_m)), ("whiteExcessKurtosis", value(i.whiteExcessKurtosis)),
            ("studentNu", nuInterval),
            ("accuracyFactor", value(i.accuracyFactor)), ("reportedLogSigma", value(i.reportedLogSigma)),
            ("reportedMedian_m", value(i.reportedMedian_m)),
            (
                "bootstrap",
                .object([("replicates", .integer(i.replicates)), ("blockLength_s", .number(i.blockLength_s))])
            ),
        ])
        let shape: JSONValue = .object([
            ("samples", .integer(e.samples)), ("duration_s", .number(e.duration_s)),
            ("sigmaEast_m", .number(e.sigmaEast_m)), ("sigmaNorth_m", .number(e.sigmaNorth_m)),
            ("correlation", .number(e.correlation)),
            ("sigmaMajor_m", .number(e.sigmaMajor_m)), ("sigmaMinor_m", .number(e.sigmaMinor_m)),
            ("majorAxisBearing_deg", .number(e.majorAxisBearing_deg)), ("outlierFraction", .number(e.outlierFraction)),
            ("measuredDRMS_m", .number(e.measuredDRMS_m)), ("smootherScale", .number(e.smootherScale)),
        ])
        let coverage: JSONValue = .object([
            ("recording", value(i.coverage)), ("synthetic", .number(g.syntheticCoverage)),
            ("honestDRMS", .number(honestDRMSCoverage)), ("underReported2x", .number(underReported2xCoverage)),
        ])
        let f = r.filtered
        let filtered: JSONValue = .object([
            ("detected", .bool(f.detected)), ("warning", f.warning.map(JSONValue.string) ?? .null),
            ("lag1_s", .number(f.lag1_s)), ("lag1Rho", .number(f.lag1Rho)),
            ("convexityExcess", .number(f.convexityExcess)), ("convexityLag_s", .number(f.convexityLag_s)),
            ("minimumRho", .number(f.minimumRho)), ("minimumRhoLag_s", .number(f.minimumRhoLag_s)),
            ("whiteFraction", .number(f.whiteFraction)),
            (
                "signs",
                .object([
                    ("convexity", .bool(f.convexityFlag)), ("negative", .bool(f.negativeFlag)),
                    ("noWhite", .bool(f.noWhiteFlag)),
                ])
            ),
        ])
        let gof: JSONValue = .object([
            ("verdict", .string(g.verdict)), ("matches", .bool(g.matches)), ("alpha", .number(GoodnessOfFit.alpha)),
            ("nullDrives", .integer(g.drives)),
            ("ks", .object([("distance", .number(g.ksDistance)), ("p", .number(g.ksP))])),
            (
                "acfDifference",
                .object([
                    ("maxAbs", .number(g.acfDifference)), ("lag_s", .number(g.acfDifferenceLag_s)),
                    ("p", .number(g.acfP)),
                ])
            ),
        ])
        let acf: JSONValue = .object([
            ("binWidth_s", .number(r.acf.binWidth_s)), ("lag_s", .array(r.acf.lags_s.map(JSONValue.number))),
            ("recording", .array(r.acf.rho.map(JSONValue.number))),
            ("recordingBand95", .array(r.acf.band95.map(JSONValue.number))),
            ("synthetic", .array(g.syntheticACF.rho.map(JSONValue.number))),
            ("syntheticLow95", .array(g.syntheticLow.map(JSONValue.number))),
            ("syntheticHigh95", .array(g.syntheticHigh.map(JSONValue.number))),
        ])
        return .object(
            [
                ("schema", .string(schema)), ("file", .string(r.file)), ("mode", .string(r.mode.rawValue)),
                ("seed", .integer(Int(truncatingIfNeeded: r.options.seed))),
                ("warnings", .array(r.warnings.map(JSONValue.string))),
                ("notes", .array(r.notes.map(JSONValue.string))),
                ("fixes", fixes), ("models", models), ("moments", moments), ("shape", shape), ("coverage", coverage),
                ("filtered", filtered), ("goodnessOfFit", gof), ("autocorrelation", acf), ("scenario", r.scenarioBlock),
            ] + (r.ingest.isEmpty ? [] : [("ingest", r.ingest.json)]))
    }

    /// One-line JSON (for the block as the last line of stdout); same number text as `serialized()`.
    package static func compact(_ v: JSONValue) -> String {
        switch v {
        case .object(let pairs):
            return "{"
                + pairs.map { JSONValue.string($0.0).serialized() + ": " + compact($0.1) }.joined(separator: ", ") + "}"
        case .array(let items): return "[" + items.map(compact).joined(separator: ", ") + "]"
        default: return v.serialized()
        }
    }

    static func nu(_ kurtosis: Double) -> Double { 4 + 6 / kurtosis }

    static func interval(_ v: FittedValue, unit: String) -> String {
        let f = ReportText.short
        return "\(f(v.value))\(unit) [\(f(v.lower)), \(f(v.upper))]"
    }

    /// Human-readable lines for stdout (the block follows them as the last line).
    package static func summaryLines(_ r: CalibrationResult) -> [String] {
        let e = r.estimate
        let m = e.models
        let i = e.intervals
        let f = ReportText.short
        var lines = ["fixes: " + r.accounting.summary]
        if let ingest = r.ingest.summary { lines.append("import: " + ingest) }
        lines.append(
            "model: \(m.selected.rawValue) (\(m.selectedBecause)); 95 % intervals"
        )
        if m.selected == .whiteGaussMarkov, let w = m.gmWhiteSigma_m, let b = m.gmBiasSigma_m, let t = m.gmTau_s {
            lines.append("  white σ per axis  \(interval(w, unit: " m"))  (\(w.method))")
            lines.append("  bias σ per axis   \(interval(b, unit: " m"))")
            lines.append("  τ                 \(interval(t, unit: " s"))")
        } else {
            lines.append("  white σ per axis  \(interval(m.whiteSigma_m, unit: " m"))  (\(m.whiteSigma_m.method))")
        }
        if e.smootherScale != 1 {
            lines.append(
                "  (--track: σ scaled by \(f(e.smootherScale)) so that synthetic drives through the same smoother match the residual σ; τ not corrected)"
            )
        }
        if let nu = e.studentNu {
            let hi =
                i.whiteExcessKurtosis.lower > NoiseCalibrator.kurtosisThreshold
                ? f(Self.nu(i.whiteExcessKurtosis.lower)) : "∞"
            lines.append(
                "  Student-t ν       \(f(nu)) [\(f(Self.nu(i.whiteExcessKurtosis.upper))), \(hi)]  (block bootstrap of the kurtosis)"
            )
            lines.append(
                "  block sigma_m     \(f(CalibrationRun.BlockParameters(e).sigma_m)) m (the t scale: white σ·√((ν − 2)/ν))"
            )
        }
        lines.append(
            "  accuracy factor   \(interval(i.accuracyFactor, unit: "")) (reported median / measured DRMS)  (block bootstrap)"
        )
        if let why = e.misreportNotIdentifiable {
            lines.append("  mis-report σ      not identifiable: \(why)")
        } else {
            lines.append("  mis-report σ      \(interval(i.reportedLogSigma, unit: ""))")
        }
        lines.append(
            "coverage of reported accuracy: \(f(100 * i.coverage.value)) % [\(f(100 * i.coverage.lower)), \(f(100 * i.coverage.upper))] (synthetic \(f(100 * r.goodness.syntheticCoverage)) %; Gaussian with honest DRMS \(f(100 * honestDRMSCoverage)) %, DRMS under-reported 2× \(f(100 * underReported2xCoverage)) %)"
        )
        lines.append("verdict: " + r.goodness.verdict + (r.accuracyVerdict.map { "; " + $0 } ?? ""))
        for w in r.warnings { lines.append("WARNING: " + w) }
        return lines
    }
}
