import GeoPolicy
import ReportKit

// The scenario plots of index.html, drawn with the SVG primitives of ReportKit.
extension SVGPlots {
    // MARK: track

    /// Track with fence circles, observed fixes coloured by state, truth as a line.
    static func track(_ p: ScenarioPlots, id: String) -> String {
        let obs = stride(p.observedTrack, limit: 2500)
        let truth = stride(p.truthTrack, limit: 2000)
        var minE = -p.fence.exit_m
        var maxE = p.fence.exit_m
        var minN = -p.fence.exit_m
        var maxN = p.fence.exit_m
        for q in obs where q.east_m.isFinite && q.north_m.isFinite {
            minE = min(minE, q.east_m)
            maxE = max(maxE, q.east_m)
            minN = min(minN, q.north_m)
            maxN = max(maxN, q.north_m)
        }
        for q in truth where q.east_m.isFinite && q.north_m.isFinite {
            minE = min(minE, q.east_m)
            maxE = max(maxE, q.east_m)
            minN = min(minN, q.north_m)
            maxN = max(maxN, q.north_m)
        }
        // Long drives would shrink the fence to a dot: the view is limited to ±viewLimit
        // around the centre and the rest is clipped (and said so in the plot).
        let viewLimit = max(4 * p.fence.exit_m, 400)
        let zoomed = minE < -viewLimit || maxE > viewLimit || minN < -viewLimit || maxN > viewLimit
        minE = max(minE, -viewLimit)
        maxE = min(maxE, viewLimit)
        minN = max(minN, -viewLimit)
        maxN = min(maxN, viewLimit)
        let padE = (maxE - minE) * 0.06
        let padN = (maxN - minN) * 0.06
        minE -= padE
        maxE += padE
        minN -= padN
        maxN += padN
        let width = 420.0
        let plotTop = 8.0
        let legendSpace = 44.0
        let scale = width / (maxE - minE)
        let plotHeight = min(max((maxN - minN) * scale, 160), 560)
        let scaleY = min(scale, plotHeight / (maxN - minN))
        let s = min(scale, scaleY)
        let offX = (width - (maxE - minE) * s) / 2
        let offY = plotTop + (plotHeight - (maxN - minN) * s) / 2
        // Equal metres per pixel on both axes, north up, centred in the plot area.
        let f = PlotFrame(
            width: width, height: plotTop + plotHeight + legendSpace, left: 0, top: plotTop, plotWidth: width,
            plotHeight: plotHeight,
            x: LinearScale(domain: (minE, maxE), start: offX, length: (maxE - minE) * s),
            y: LinearScale(domain: (maxN, minN), start: offY, length: (maxN - minN) * s))
        let x = f.x
        let y = f.y
        var out = f.svgOpen(label: "Track in fence-relative metres")
        let clipID = "clip-\(id)"
        out +=
            "<defs><clipPath id=\"\(clipID)\"><rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(plotTop + plotHeight))\"/></clipPath></defs>"
        out += "<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(plotTop + plotHeight))\" fill=\"#fbfbfb\"/>"
        out += "<g clip-path=\"url(#\(clipID))\">"
        out +=
            "<circle cx=\"\(n(x(0)))\" cy=\"\(n(y(0)))\" r=\"\(n(p.fence.exit_m * s))\" fill=\"none\" stroke=\"#444\" stroke-width=\"1.5\"/>"
        out +=
            "<circle cx=\"\(n(x(0)))\" cy=\"\(n(y(0)))\" r=\"\(n(p.fence.enter_m * s))\" fill=\"\(insideColour)\" fill-opacity=\"0.07\" stroke=\"#444\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>"
        out += "<path d=\"M\(n(x(0) - 4)) \(n(y(0)))h8M\(n(x(0))) \(n(y(0) - 4))v8\" stroke=\"#444\"/>"
        if truth.count > 1 {
            out += "<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\""
            out += truth.filter { $0.east_m.isFinite && $0.north_m.isFinite }.map {
                "\(n(x($0.east_m))),\(n(y($0.north_m)))"
            }.joined(separator: " ")
            out += "\"/>"
        }
        for state in [FenceState.unknown, .outside, .inside] {
            let pts = obs.filter { $0.state == state && $0.east_m.isFinite && $0.north_m.isFinite }
            guard !pts.isEmpty else { continue }
            out += "<g fill=\"\(colour(state))\" fill-opacity=\"0.75\">"
            for q in pts { out += "<circle cx=\"\(n(x(q.east_m)))\" cy=\"\(n(y(q.north_m)))\" r=\"1.8\"/>" }
            out += "</g>"
        }
        out += "</g>"
        if zoomed { out += "<text x=\"6\" y=\"18\">zoomed to ±\(ReportText.short(viewLimit)) m</text>" }
        // Scale bar below the plot area (right end of the second legend row): never drawn over the track.
        let bar = niceLength((maxE - minE) / 5)
        let by = plotTop + plotHeight + 34
        let barEnd = width - 6
        out +=
            "<path d=\"M\(n(barEnd - bar * s)) \(n(by))h\(n(bar * s))M\(n(barEnd - bar * s)) \(n(by - 4))v8M\(n(barEnd)) \(n(by - 4))v8\" stroke=\"#000\" stroke-width=\"2\"/>"
        out +=
            "<text x=\"\(n(barEnd - bar * s - 6))\" y=\"\(n(by + 4))\" text-anchor=\"end\">\(ReportText.short(bar)) m</text>"
        out += "<text x=\"\(n(width - 4))\" y=\"18\" text-anchor=\"end\">N ↑</text>"
        out +=
            "<g class=\"legend\">"
            + legend(
                [
                    ("dot", insideColour, "inside"), ("dot", outsideColour, "outside"),
                    ("dot", unknownColour, "unknown"), ("line", "#222", "truth"),
                ],
                x: 6, y: plotTop + plotHeight + 18)
        out +=
            legend(
                [
                    ("dash", "#444", "enter \(ReportText.short(p.fence.enter_m)) m"),
                    ("line", "#444", "exit \(ReportText.short(p.fence.exit_m)) m"),
                ],
                x: 6, y: plotTop + plotHeight + 38) + "</g>"
        return out + "</svg>"
    }

    // MARK: timeline

    /// Per pixel column: the colour of the states present (mixed when more than one).
    static func lane(_ states: [StateSample], t0: Double, t1: Double, columns: Int) -> [(Int, Int, String)] {
        var present = [UInt8](repeating: 0, count: columns)  // bit 0 unknown, 1 inside, 2 outside
        guard t1 > t0, !states.isEmpty else { return [] }
        let column = LinearScale(domain: (t0, t1), start: 0, length: Double(columns))
        for (i, s) in states.enumerated() where s.time_s.isFinite {
            let end = i + 1 < states.count ? states[i + 1].time_s : t1
            // Clamped to the plot in Double first, so a time outside [t0, t1] cannot trap Int().
            let a = Int(min(max(column(s.time_s).rounded(.down), -1), Double(columns)))
            let b = Int(min(max(column(end).rounded(.up), -1), Double(columns)))
            let bit: UInt8 = s.state == .unknown ? 1 : (s.state == .inside ? 2 : 4)
            for c in max(0, a)..<min(columns, max(a + 1, b)) { present[c] |= bit }
        }
        var runs: [(Int, Int, String)] = []
        for c in 0..<columns where present[c] != 0 {
            let bits = present[c]
            let col = bits == 1 ? unknownColour : bits == 2 ? insideColour : bits == 4 ? outsideColour : mixedColour
            if let last = runs.last, last.1 == c, last.2 == col {
                runs[runs.count - 1].1 = c + 1
            } else {
                runs.append((c, c + 1, col))
            }
        }
        return runs
    }

    /// Truth vs observed state bands with transition ticks (spurious observed ticks in red).
    static func timeline(_ p: ScenarioPlots, width: Double = 800) -> String {
        let left = 70.0
        let right = 12.0
        let columns = Int(width - left - right)
        let ticks = width < 600 ? 3 : 6
        let times = (p.truthStates + p.observedStates).map(\.time_s).filter(\.isFinite)
        guard let t0 = times.min(), let t1 = times.max(), t1 > t0 else {
            return "<p class=\"muted\">No state samples.</p>"
        }
        let x = LinearScale(domain: (t0, t1), start: left, length: Double(columns))
        let laneTruth = 14.0
        let laneObs = 58.0
        let laneH = 30.0
        let height = width < 600 ? 160.0 : 138.0
        var out = svgOpen(width: width, height: height, label: "State timeline, truth versus observed")
        out +=
            "<text x=\"4\" y=\"\(n(laneTruth + 20))\">truth</text><text x=\"4\" y=\"\(n(laneObs + 20))\">observed</text>"
        for (y, states) in [(laneTruth, p.truthStates), (laneObs, p.observedStates)] {
            for (a, b, col) in lane(states, t0: t0, t1: t1, columns: columns) {
                out +=
                    "<rect x=\"\(n(left + Double(a)))\" y=\"\(n(y))\" width=\"\(n(Double(b - a)))\" height=\"\(n(laneH))\" fill=\"\(col)\"/>"
            }
        }
        let truthT = Flutter.transitions(of: p.truthStates)
        let obsT = Flutter.transitions(of: p.observedStates)
        let matched = Set(((try? Flutter.measure(truth: truthT, observed: obsT))?.matches ?? []).map(\.observedIndex))
        if truthT.count <= 300 {
            for t in truthT {
                out +=
                    "<line x1=\"\(n(x(t.time_s)))\" x2=\"\(n(x(t.time_s)))\" y1=\"\(n(laneTruth - 4))\" y2=\"\(n(laneObs + laneH + 4))\" stroke=\"#000\" stroke-width=\"1\" stroke-dasharray=\"2 2\"/>"
            }
        }
        if obsT.count <= 400 {
            for (i, t) in obsT.enumerated() {
                let spurious = !matched.contains(i)
                let cx = x(t.time_s)
                let ty = laneObs + laneH + 2
                out += "<path d=\"M\(n(cx)) \(n(ty))l-4 7h8z\" fill=\"\(spurious ? "#c00" : "#000")\"/>"
            }
        }
        let axisY = laneObs + laneH + 24
        out += timeAxis(x, ticks: ticks, y: axisY)
        let items: [(String, String, String)] = [
            ("dot", insideColour, "inside"), ("dot", outsideColour, "outside"),
            ("dot", unknownColour, "unknown"), ("dot", mixedColour, "mixed in 1 px"),
            ("dot", "#c00", "spurious ▲"),
        ]
        if width < 600 {
            out +=
                "<g class=\"legend\">" + legend(Array(items.prefix(3)), x: 4, y: height - 22)
                + legend(Array(items.suffix(2)), x: 4, y: height - 4) + "</g>"
        } else {
            out += "<g class=\"legend\">" + legend(items, x: left, y: height - 4) + "</g>"
        }
        return out + "</svg>"
    }

    // MARK: error over time

    /// Error over time, one polyline per track; each pixel column keeps its maximum (spikes stay visible).
    static func errors(_ e: ErrorSeries, width: Double = 800) -> String {
        let left = 50.0
        let right = 12.0
        let top = 12.0
        let plotH = width < 600 ? 150.0 : 170.0
        let height = plotH + 58
        let series: [(String, [Double])] = [
            ("raw", e.raw_m), ("seedBaseline", e.seedBaseline_m ?? []),
            ("filtered", e.filtered_m ?? []), ("smoothed", e.smoothed_m ?? []),
            ("imm", e.imm_m ?? []),
        ]
        .filter { !$0.1.isEmpty && $0.1.count == e.time_s.count }
        let times = e.time_s.filter(\.isFinite)
        guard let t0 = times.min(), let t1 = times.max(), t1 > t0, !series.isEmpty else {
            return "<p class=\"muted\">No error series.</p>"
        }
        // A baseline that fails by orders of magnitude (seed 004's filter at the date line: ~10⁶ m)
        // would flatten every other line: keep the scale of the others and say the baseline is off scale.
        func peak(_ v: [Double]) -> Double { v.filter(\.isFinite).max() ?? 0 }
        let othersMax = series.filter { $0.0 != "seedBaseline" }.map { peak($0.1) }.max() ?? 0
        let baselineMax = series.first { $0.0 == "seedBaseline" }.map { peak($0.1) } ?? 0
        let offScale = othersMax > 0 && baselineMax > 5 * othersMax
        let yMax = max(1e-9, offScale ? othersMax : max(othersMax, baselineMax))
        let yTicks = AxisTicks.covering(0, yMax, intervals: width < 600 ? 4 : 5)
        let columns = Int(width - left - right)
        let f = PlotFrame(
            width: width, height: height, left: left, top: top, plotWidth: Double(columns), plotHeight: plotH,
            x: (t0, t1), y: yTicks.domain)
        let column = LinearScale(domain: (t0, t1), start: 0, length: Double(columns))
        var out = f.svgOpen(label: "Horizontal error over time")
        out += f.yGrid(yTicks, unit: " m")
        if offScale {
            out +=
                "<text x=\"\(n(width - right - 4))\" y=\"\(n(top + 12))\" text-anchor=\"end\" fill=\"\(seriesColours["seedBaseline"] ?? "#000")\">seedBaseline off scale (max \(ReportText.short(baselineMax)) m)</text>"
        }
        for (name, values) in series {
            var colMax = [Double](repeating: -1, count: columns + 1)
            var colT = [Double](repeating: 0, count: columns + 1)
            for (t, v) in zip(e.time_s, values) where t.isFinite && v.isFinite {
                let c = Int(column(t).rounded())
                if v > colMax[c] {
                    colMax[c] = v
                    colT[c] = t
                }
            }
            let pts = (0...columns).filter { colMax[$0] >= 0 }.map {
                "\(n(f.x(colT[$0]))),\(n(f.y.capped(colMax[$0])))"
            }
            let w = name == "raw" ? "1" : "1.6"
            out +=
                "<polyline fill=\"none\" stroke=\"\(seriesColours[name] ?? "#000")\" stroke-width=\"\(w)\" stroke-linejoin=\"round\" points=\"\(pts.joined(separator: " "))\"/>"
        }
        out += timeAxis(f.x, ticks: width < 600 ? 3 : 6, y: top + plotH + 16)
        out +=
            "<g class=\"legend\">"
            + legend(
                series.map { ("line", seriesColours[$0.0] ?? "#000", $0.0) }, x: width < 600 ? 4 : left, y: height - 6)
            + "</g>"
        return out + "</svg>"
    }

    // MARK: gap fill

    /// RMSE per gap bucket and method (replicate means) with 95 % CI whiskers.
    static func gapFill(_ metrics: MetricAggregate, methods: [String], width: Double = 420) -> String {
        let buckets = GapBucket.allCases
        var values: [(GapBucket, String, Estimate?)] = []
        for b in buckets {
            for m in methods { values.append((b, m, metrics.estimate("gapFill.\(m).\(b.rawValue).rmse_m"))) }
        }
        let maxV = values.compactMap { $0.2.map { max($0.upper, $0.mean) } }.max() ?? 0
        guard maxV > 0 else { return "<p class=\"muted\">No filled gaps.</p>" }
        let left = 50.0
        let top = 12.0
        let plotH = 200.0
        let height = 262.0
        let yTicks = AxisTicks.covering(0, maxV, intervals: 5)
        // x: one group of bars per bucket, positioned by groupW (the x scale is not used).
        let f = PlotFrame(
            width: width, height: height, left: left, top: top, plotWidth: width - left - 12, plotHeight: plotH,
            x: (0, Double(buckets.count)), y: yTicks.domain)
        let groupW = f.plotWidth / Double(buckets.count)
        let barW = min(40, (groupW - 20) / Double(max(1, methods.count)))
        let y = f.y.capped
        var out = f.svgOpen(label: "Gap-fill RMSE per gap length")
        out += f.yGrid(yTicks, unit: " m")
        for (bi, b) in buckets.enumerated() {
            let gx = left + Double(bi) * groupW
            let start = gx + (groupW - barW * Double(methods.count)) / 2
            var any = false
            for (mi, m) in methods.enumerated() {
                guard let e = metrics.estimate("gapFill.\(m).\(b.rawValue).rmse_m") else { continue }
                any = true
                let bx = start + Double(mi) * barW
                out +=
                    "<rect x=\"\(n(bx + 2))\" y=\"\(n(y(e.mean)))\" width=\"\(n(barW - 4))\" height=\"\(n(y(0) - y(e.mean)))\" fill=\"\(methodColours[m] ?? "#555")\"><title>\(ReportText.xml("\(m) \(b.rawValue): \(ReportText.estimate(e)) m"))</title></rect>"
                if e.n > 1 {
                    let cx = bx + barW / 2
                    out +=
                        "<path d=\"M\(n(cx)) \(n(y(e.lower)))V\(n(y(e.upper)))M\(n(cx - 4)) \(n(y(e.upper)))h8M\(n(cx - 4)) \(n(y(e.lower)))h8\" stroke=\"#000\"/>"
                }
            }
            if !any {
                out +=
                    "<text x=\"\(n(gx + groupW / 2))\" y=\"\(n(y(0) - 8))\" text-anchor=\"middle\" class=\"muted\">no gaps</text>"
            }
            out +=
                "<text x=\"\(n(gx + groupW / 2))\" y=\"\(n(top + plotH + 16))\" text-anchor=\"middle\">\(ReportText.xml(b.rawValue))</text>"
        }
        out +=
            "<g class=\"legend\">"
            + legend(methods.map { ("dot", methodColours[$0] ?? "#555", $0) }, x: 4, y: height - 6) + "</g>"
        return out + "</svg>"
    }
}
