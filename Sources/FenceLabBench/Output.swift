import Foundation

/// Output formats of the tables.
package enum OutputFormat: String, CaseIterable, Sendable {
    case text, markdown, json
}

/// Renders results and comparisons as text or Markdown tables.
package enum TableWriter {
    static func results(
        _ results: [Measurement], tool: String, machine: MachineInfo, configuration: RunConfiguration,
        format: OutputFormat
    ) -> String {
        let header = [
            "benchmark", "items/s", "median/run", "p90/run", "kernel items/s", "ratio", "target", "allocs/item",
        ]
        let rows = results.map { m -> [String] in
            [
                m.name, rate(m.itemsPerSecond), duration(m.medianRun_ns), duration(m.p90Run_ns),
                m.referenceItemsPerSecond.map(rate) ?? "-",
                m.ratio.map { String(format: "%.2f×", $0) } ?? "-",
                m.target ?? "-",
                m.allocationsPerItem.map { String(format: "%.3g", $0) } ?? "n/a",
            ]
        }
        var lines = [
            "\(tool): \(machine.summary)",
            "samples \(configuration.samples), slowdown \(String(format: "%g", configuration.slowdown)); ratio = items/s ÷ kernel items/s, median over interleaved (ABBA) sample pairs",
            "",
        ]
        lines += table(header: header, rows: rows, format: format)
        return lines.joined(separator: "\n")
    }

    static func comparison(_ c: Comparison, format: OutputFormat) -> String {
        // Allocations are counted by time runs only.
        let showAllocations = c.rows.contains { $0.metric != "instr/item" }
        let header =
            ["benchmark", "metric", "better", "baseline", "current", "change", "gate"]
            + (showAllocations ? ["allocs/item"] : []) + ["verdict"]
        let rows = c.rows.map { r -> [String] in
            let allocs =
                "\(r.baselineAllocationsPerItem.map { String(format: "%.3g", $0) } ?? "-") → \(r.currentAllocationsPerItem.map { String(format: "%.3g", $0) } ?? "-")"
            let gate: String =
                r.tolerance.map { String(format: "±%.0f%%", $0 * 100) }
                ?? r.spread.map { String(format: "tracked-only (spread ±%.0f%%)", $0 * 100) } ?? "-"
            let cells: [String] = [
                r.name, r.metric, r.polarity == .higherIsBetter ? "higher" : "lower",
                r.baseline.map { value($0, metric: r.metric) } ?? "-", value(r.current, metric: r.metric),
                r.change.map { String(format: "%+.1f%%", $0 * 100) } ?? "-", gate,
            ]
            let verdict = r.gated ? r.verdict.rawValue : "\(r.verdict.rawValue) (not gated)"
            return cells + (showAllocations ? [allocs] : []) + [verdict]
        }
        var lines = [
            "",
            "compare with baseline '\(c.baselineName)' (\(c.baselineMachine.summary)), threshold \(String(format: "%g", c.threshold * 100))%",
            "",
        ]
        lines += table(header: header, rows: rows, format: format)
        let counts = Dictionary(grouping: c.rows.filter(\.gated), by: \.verdict).mapValues(\.count)
        lines.append("")
        let tracked = counts[.tracked].map { ", \($0) tracked-only" } ?? ""
        lines.append(
            "\(counts[.improved] ?? 0) improved, \(counts[.unchanged] ?? 0) unchanged, \(counts[.regressed] ?? 0) regressed, \(counts[.new] ?? 0) new\(tracked) (not counting C kernels and demos, which never gate)"
        )
        return lines.joined(separator: "\n")
    }

    package static func table(header: [String], rows: [[String]], format: OutputFormat) -> [String] {
        switch format {
        case .markdown:
            let line = { (cells: [String]) in "| " + cells.joined(separator: " | ") + " |" }
            return [line(header), line(header.map { _ in "---" })] + rows.map(line)
        default:
            var widths = header.map(\.count)
            for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
            let line = { (cells: [String]) in
                cells.enumerated().map { i, c in
                    i == 0
                        ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[i] - c.count) + c
                }.joined(separator: "  ")
            }
            return [line(header)] + rows.map(line)
        }
    }

    /// `--metric instructions` results, in the order given (the registry's).
    static func instructionResults(
        _ report: InstructionReport, tool: String, order: [String], format: OutputFormat
    ) -> String {
        let header = [
            "benchmark", "calls", "items", "unit", "instructions", "instr/item", "kernel instr/item", "vs kernel",
        ]
        let rows = order.map { name -> [String] in
            guard let m = report.results[name] else {
                return [name, "-", "-", "-", "-", "not counted", "-", "-"]
            }
            let kernel = m.reference.flatMap { report.results[$0] }
            return [
                m.name, "\(m.calls)", "\(m.items)", m.unit, String(format: "%.0f", m.instructions),
                String(format: "%.1f", m.instructionsPerItem),
                kernel.map { String(format: "%.1f", $0.instructionsPerItem) } ?? "-",
                kernel.map { String(format: "%.2f×", m.instructionsPerItem / $0.instructionsPerItem) } ?? "-",
            ]
        }
        var lines = [
            "\(tool) --metric instructions: \(report.machine.summary)",
            "slowdown \(String(format: "%g", report.slowdown)); callgrind Ir of the body calls only (one warm call first), SWIFT_DETERMINISTIC_HASHING=1",
            "",
        ]
        lines += table(header: header, rows: rows, format: format)
        for name in order { if let why = report.notCounted[name] { lines.append("not counted: \(name): \(why)") } }
        return lines.joined(separator: "\n")
    }

    static func rate(_ v: Double) -> String { String(format: "%.3g", v) }
    static func value(_ v: Double, metric: String) -> String {
        switch metric {
        case "ratio": return String(format: "%.3f", v)
        case "instr/item": return String(format: "%.1f", v)
        default: return String(format: "%.3g", v)
        }
    }

    static func duration(_ ns: Double) -> String {
        if ns >= 1e6 { return String(format: "%.3g ms", ns / 1e6) }
        if ns >= 1e3 { return String(format: "%.3g µs", ns / 1e3) }
        return String(format: "%.3g ns", ns)
    }
}
