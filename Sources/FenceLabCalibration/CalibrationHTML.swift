import Foundation
import ReportKit
import _FenceLabSupport

/// The HTML page of `fencelab calibrate`: warnings and verdict, fixes used, fitted figures with
/// intervals, the paste-ready block, and the goodness-of-fit plots (recording vs a drive generated
/// from the block). An `HTMLPage`, like index.html; no coordinates.
package enum CalibrationHTML {
    static let recordingColour = "#0072b2", syntheticColour = "#d95f02", referenceColour = "#777777"

    /// Renders the page.
    package static func render(_ r: CalibrationResult) -> String {
        let x = ReportText.xml
        let e = r.estimate
        let banner = HTMLPage.Banner(
            cssClass: r.warnings.isEmpty ? "pass" : "fail", heading: "Noise calibration",
            lines: [
                "\(x(r.file)) · \(r.mode.rawValue) · \(e.samples) fixes over \(ReportText.short(e.duration_s)) s",
                x(r.goodness.verdict + (r.accuracyVerdict.map { "; " + $0 } ?? "")),
            ])
        var h = HTMLPage.open(title: "FenceLab calibration: \(r.file)", banner: banner)
        if !r.warnings.isEmpty {
            h +=
                "<h2>Warnings</h2>\n<ul class=\"failures\">" + r.warnings.map { "<li>WARNING: \(x($0))</li>" }.joined()
                + "</ul>\n"
        }
        h += "<h2>Fixes</h2>\n<p>\(x(r.accounting.summary))</p>\n"
        if let ingest = r.ingest.summary { h += "<p>Import: \(x(ingest))</p>\n" }
        h +=
            "<h2>Fitted figures (95 % intervals)</h2>\n<div class=\"scroll\"><table><thead><tr><th>figure</th><th>value</th><th>95 % interval</th><th>method</th></tr></thead><tbody>"
        for (name, v, unit) in fittedRows(r) {
            h +=
                "<tr><td>\(x(name))</td><td>\(x(ReportText.short(v.value) + unit))</td><td>\(x("[\(ReportText.short(v.lower)), \(ReportText.short(v.upper))]"))</td><td>\(x(v.method))</td></tr>"
        }
        h += "</tbody></table></div>\n"
        let m = e.models
        h +=
            "<p>Selected model: <b>\(x(m.selected.rawValue))</b> (likelihood ratio vs white \(ReportText.short(m.likelihoodRatio)), threshold \(ReportText.short(GaussMarkovFit.selectionThreshold))).</p>\n"
        h +=
            "<h2>Scenario block (paste into a scenario file)</h2>\n<div class=\"scroll\"><pre>\(x(r.scenarioBlock.serialized()))</pre></div>\n"
        if !r.notes.isEmpty { h += "<ul>" + r.notes.map { "<li>\(x($0))</li>" }.joined() + "</ul>\n" }
        h += "<h2>Goodness of fit: recording vs a drive generated from the block</h2>\n<div class=\"plots\">\n"
        h += HTMLPage.figure(
            "Residual autocorrelation: recording (95 % Bartlett band) and a synthetic drive with the same timestamps (95 % envelope of \(r.goodness.nullACFs.count) drives); lags 1–30 s are tested",
            autocorrelation(r), wide: true)
        h += HTMLPage.figure(
            "QQ plot of the per-axis residuals against the fitted distribution (quantiles of \(r.goodness.nullACFs.count) synthetic drives)",
            qqPlot(r), wide: false)
        h += HTMLPage.figure(
            "Coverage: fraction of fixes within c × reported accuracy (Gaussian with honest DRMS: 1 − e^(−c²))",
            coverage(r), wide: false)
        h += HTMLPage.figure("Reported accuracy: recording vs synthetic drive", accuracyHistogram(r), wide: false)
        h += "</div>\n"
        h +=
            "<p class=\"muted\">Method (docs/calibration.md): residuals against the \(r.mode == .stationary ? "mean position (local east-north frame)" : "RTS-smoothed path"); white and white + Gauss–Markov fitted by exact maximum likelihood (Kalman prediction-error decomposition, Gauss–Markov discretised by each Δt) with QML sandwich intervals; moment figures with moving-block bootstrap intervals (\(e.intervals.replicates) replicates, block \(ReportText.short(e.intervals.blockLength_s)) s, seed \(r.options.seed)); two-sample test with Monte Carlo p-values from \(r.goodness.drives) synthetic drives.</p>\n"
        return h + HTMLPage.close(toolVersion: ToolVersion.string, note: "No raw coordinates are included.")
    }

    static func fittedRows(_ r: CalibrationResult) -> [(String, FittedValue, String)] {
        let m = r.estimate.models
        let i = r.estimate.intervals
        var rows: [(String, FittedValue, String)] = [("white model: σ per axis", m.whiteSigma_m, " m")]
        if let w = m.gmWhiteSigma_m, let b = m.gmBiasSigma_m, let t = m.gmTau_s {
            rows += [
                ("white + Gauss–Markov: white σ", w, " m"), ("white + Gauss–Markov: bias σ", b, " m"),
                ("white + Gauss–Markov: τ", t, " s"),
            ]
        }
        rows += [
            ("per-axis σ (all noise)", i.perAxisSigma_m, " m"), ("white excess kurtosis", i.whiteExcessKurtosis, ""),
            ("accuracy factor (reported median / DRMS)", i.accuracyFactor, ""),
        ]
        if r.estimate.misreportNotIdentifiable == nil {
            rows.append(("mis-report σ of ln(accuracy)", i.reportedLogSigma, ""))
        }
        rows += [
            ("reported accuracy median", i.reportedMedian_m, " m"), ("coverage of reported accuracy", i.coverage, ""),
        ]
        return rows
    }

    /// A calibration plot: margins of 46, 26, 10 and 44 px (left, right, top, bottom) around the data
    /// area; x maps `x`, y maps `y` (data are held to its range, see `px`/`py`).
    struct Frame {
        let frame: PlotFrame

        init(width: Double, height: Double, x: (Double, Double), y: (Double, Double)) {
            let left = 46.0
            let right = 26.0
            let top = 10.0
            let bottom = 44.0
            frame = PlotFrame(
                width: width, height: height, left: left, top: top, plotWidth: width - left - right,
                plotHeight: height - top - bottom, x: x, y: y)
        }

        var top: Double { frame.top }
        func px(_ v: Double) -> Double { frame.x(v) }
        func py(_ v: Double) -> Double { frame.y.clamped(v) }

        func axes(xTicks: AxisTicks, yTicks: AxisTicks, xUnit: String, yUnit: String, label: String) -> String {
            frame.svgOpen(label: label) + frame.yGrid(yTicks, unit: yUnit)
                + frame.xAxis(xTicks, unit: xUnit, anchorEnds: false, gridLines: false)
        }

        func line(_ points: [(Double, Double)], colour: String, dashed: Bool = false) -> String {
            let pts = points.filter { $0.0.isFinite && $0.1.isFinite }.map {
                "\(SVGPlots.n(px($0.0))),\(SVGPlots.n(py($0.1)))"
            }
            guard pts.count > 1 else { return "" }
            return
                "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"4 3\"" : "") points=\"\(pts.joined(separator: " "))\"/>"
        }

        func band(_ xs: [Double], low: [Double], high: [Double], colour: String) -> String {
            let k = xs.indices.filter { $0 < low.count && $0 < high.count && low[$0].isFinite && high[$0].isFinite }
            guard k.count > 1 else { return "" }
            let upper = k.map { "\(SVGPlots.n(px(xs[$0]))),\(SVGPlots.n(py(high[$0])))" }
            let lower = k.reversed().map { "\(SVGPlots.n(px(xs[$0]))),\(SVGPlots.n(py(low[$0])))" }
            return
                "<polygon fill=\"\(colour)\" fill-opacity=\"0.18\" stroke=\"none\" points=\"\((upper + lower).joined(separator: " "))\"/>"
        }

        func legend(_ items: [(String, String, String)]) -> String {
            "<g class=\"legend\">" + SVGPlots.legend(items, x: frame.left, y: frame.height - 6) + "</g></svg>"
        }
    }

    /// Recording ACF with its Bartlett band, synthetic drive 0 with the envelope of the drives.
    static func autocorrelation(_ r: CalibrationResult, width: Double = 860) -> String {
        let a = r.acf
        let g = r.goodness
        let lagMax = a.lags_s.last ?? 1
        let values = (a.rho + g.syntheticACF.rho).filter(\.isFinite)
        let yTicks = AxisTicks.covering(min(-0.2, values.min() ?? 0), 1, intervals: 6, quarter: true)
        let yLow = yTicks.lower
        // Lags are whole seconds from 1 s: a number axis from 0 covering the longest lag.
        let xTicks = AxisTicks.covering(0, lagMax, intervals: 6)
        let f = Frame(width: width, height: 250, x: xTicks.domain, y: yTicks.domain)
        var out = f.axes(
            xTicks: xTicks, yTicks: yTicks, xUnit: " s", yUnit: "",
            label: "Residual autocorrelation, recording and synthetic")
        out +=
            "<line x1=\"\(SVGPlots.n(f.px(0)))\" x2=\"\(SVGPlots.n(f.px(lagMax)))\" y1=\"\(SVGPlots.n(f.py(0)))\" y2=\"\(SVGPlots.n(f.py(0)))\" stroke=\"#999\"/>"
        let tested = min(GoodnessOfFit.acfTestLags_s.upperBound, lagMax)
        out +=
            "<rect x=\"\(SVGPlots.n(f.px(GoodnessOfFit.acfTestLags_s.lowerBound)))\" y=\"\(SVGPlots.n(f.top))\" width=\"\(SVGPlots.n(f.px(tested) - f.px(1)))\" height=\"\(SVGPlots.n(f.py(yLow) - f.top))\" fill=\"#f4f0c8\" fill-opacity=\"0.5\"/>"
        out += f.band(g.syntheticACF.lags_s, low: g.syntheticLow, high: g.syntheticHigh, colour: syntheticColour)
        out += f.band(
            a.lags_s, low: zip(a.rho, a.band95).map { $0 - $1 }, high: zip(a.rho, a.band95).map { $0 + $1 },
            colour: recordingColour)
        out += f.line(Array(zip(g.syntheticACF.lags_s, g.syntheticACF.rho)), colour: syntheticColour)
        out += f.line(Array(zip(a.lags_s, a.rho)), colour: recordingColour)
        return out
            + f.legend([
                ("line", recordingColour, "recording ± 95 % band"),
                ("line", syntheticColour, "synthetic drive, 95 % envelope"),
                ("dot", "#e8e0a0", "tested lags 1–30 s"),
            ])
    }

    /// Recording quantiles against the fitted distribution's, with the identity line.
    static func qqPlot(_ r: CalibrationResult, width: Double = 420) -> String {
        let qq = r.goodness.qq
        let extent = max(1e-9, qq.map { max(abs($0.x), abs($0.y)) }.max() ?? 1)
        let ticks = AxisTicks.covering(-extent, extent, intervals: 6)
        let top = max(-ticks.lower, ticks.upper)
        let f = Frame(width: width, height: 280, x: ticks.domain, y: ticks.domain)
        var out = f.axes(
            xTicks: ticks, yTicks: ticks, xUnit: " m",
            yUnit: " m",
            label: "QQ plot of residuals against the fitted distribution")
        out += f.line([(-top, -top), (top, top)], colour: referenceColour, dashed: true)
        out += qq.map {
            "<circle cx=\"\(SVGPlots.n(f.px($0.x)))\" cy=\"\(SVGPlots.n(f.py($0.y)))\" r=\"2\" fill=\"\(recordingColour)\"/>"
        }.joined()
        return out
            + f.legend([("dot", recordingColour, "recording vs model quantile"), ("dash", referenceColour, "identity")])
    }

    /// Fraction of fixes with |r| ≤ c × reported accuracy, c from 0 to 2.5.
    static func coverage(_ r: CalibrationResult, width: Double = 420) -> String {
        let f = Frame(width: width, height: 280, x: (0, 2.5), y: (0, 1))
        var out = f.axes(
            xTicks: AxisTicks.covering(0, 2.5, intervals: 5),
            yTicks: AxisTicks.covering(0, 1, intervals: 4, quarter: true),
            xUnit: " ×", yUnit: "",
            label: "Coverage of the reported accuracy")
        let cs = (0...50).map { 2.5 * Double($0) / 50 }
        func curve(_ radiiOverAccuracy: [Double]) -> [(Double, Double)] {
            let sorted = radiiOverAccuracy.sorted()
            let n = Double(max(1, sorted.count))
            var j = 0
            return cs.map { c in
                while j < sorted.count && sorted[j] <= c { j += 1 }
                return (c, Double(j) / n)
            }
        }
        let recording = zip(r.input.residuals_m, r.input.reportedAccuracy_m).map { ($0 * $0).sum().squareRoot() / $1 }
        out += f.line(cs.map { ($0, 1 - exp(-$0 * $0)) }, colour: referenceColour, dashed: true)
        out += f.line(curve(r.goodness.syntheticCoverageRatios), colour: syntheticColour)
        out += f.line(curve(recording), colour: recordingColour)
        for (c, p) in [(1.0, CalibrationReport.honestDRMSCoverage), (0.5, CalibrationReport.underReported2xCoverage)] {
            out +=
                "<circle cx=\"\(SVGPlots.n(f.px(c)))\" cy=\"\(SVGPlots.n(f.py(p)))\" r=\"3\" fill=\"none\" stroke=\"\(referenceColour)\"/>"
        }
        let measured = r.estimate.coverage
        out +=
            "<text x=\"\(SVGPlots.n(f.px(1) + 6))\" y=\"\(SVGPlots.n(f.py(measured) + 14))\">\(ReportText.short(100 * measured)) % at 1×</text>"
        return out
            + f.legend([
                ("line", recordingColour, "recording"), ("line", syntheticColour, "synthetic"),
                ("dash", referenceColour, "honest DRMS"),
            ])
    }

    /// Histograms (as density outlines) of the reported accuracy, recording and synthetic drive 0.
    static func accuracyHistogram(_ r: CalibrationResult, width: Double = 420) -> String {
        let rec = r.input.reportedAccuracy_m
        let syn = r.goodness.syntheticAccuracy_m
        let sortedAll = (rec + syn).sorted()
        let xTicks = AxisTicks.covering(
            0, max(1e-9, sortedAll[min(sortedAll.count - 1, Int(Double(sortedAll.count) * 0.995))] * 1.05), intervals: 5
        )
        let upper = xTicks.upper
        let bins = 40
        let bw = upper / Double(bins)
        func density(_ v: [Double]) -> [Double] {
            var c = [Double](repeating: 0, count: bins)
            for a in v where a < upper { c[Int(a / bw)] += 1 }
            return c.map { $0 / (Double(max(1, v.count)) * bw) }
        }
        let dr = density(rec)
        let ds = density(syn)
        let yTicks = AxisTicks.covering(0, max(1e-12, (dr + ds).max() ?? 1) * 1.05, intervals: 4)
        let f = Frame(width: width, height: 280, x: (0, upper), y: yTicks.domain)
        var out = f.axes(
            xTicks: xTicks, yTicks: yTicks, xUnit: " m", yUnit: "/m",
            label: "Reported accuracy distribution")
        func steps(_ d: [Double]) -> [(Double, Double)] {
            d.enumerated().flatMap { [(Double($0.offset) * bw, $0.element), (Double($0.offset + 1) * bw, $0.element)] }
        }
        out += f.line(steps(ds), colour: syntheticColour)
        out += f.line(steps(dr), colour: recordingColour)
        return out + f.legend([("line", recordingColour, "recording"), ("line", syntheticColour, "synthetic")])
    }
}
