import DeviceLogKit
import GeoPolicy
import _FenceLabSupport

/// What `fencelab accept --device-logs` analyses.
package struct FleetRequest: Sendable {
    /// A manifest CSV or a folder of logs with `LOG.meta.json` sidecars.
    package var source: String
    package var fence: Coordinate
    package var rule: RuleSpec = .default
    package var input: FenceInput = .raw
    package var maxAge_s = DeviceReplay.defaultMaxAge_s
    package var format: DeviceLogFormat?
    package var readOptions = DeviceLogReadOptions()
    package var comparison: FleetComparisonSpec?
    package var gates: [FleetGate] = []
    /// Logs replayed at once (≥ 1); the result does not depend on it.
    package var jobs = 1
    /// Seed of the bootstrap intervals.
    package var seed: UInt64 = 0

    package init(source: String, fence: Coordinate) {
        self.source = source
        self.fence = fence
    }
}

/// Streams a fleet of device logs through `DeviceReplay` and analyses the per-log summaries.
package enum FleetRun {
    /// Checks everything that does not need a replay: the manifest or sidecars, the compared key and
    /// values, the gated figures. Throws `FleetError` naming the manifest line or the option.
    package static func prepare(_ request: FleetRequest) throws(FleetError) -> (keys: [String], entries: [FleetEntry]) {
        let entries = try FleetManifest.load(request.source)
        let keys = entries[0].keys
        for gate in request.gates where FleetFigure.named(gate.figure) == nil {
            throw FleetError(
                "--gate \(gate.figure): unknown figure; one of \(FleetFigure.all.map(\.name).joined(separator: ", "))")
        }
        for gate in request.gates where gate.figure == FleetFigure.nisFigureName && request.input.kind == .raw {
            throw FleetError(
                "--gate \(gate.figure): raw input has no filter innovations; configure one with --rule SPEC+kalman or +imm"
            )
        }
        if !request.gates.isEmpty, request.comparison == nil {
            throw FleetError("--gate needs --compare KEY=A..B (the gate judges the candidate against the baseline)")
        }
        if let c = request.comparison {
            guard keys.contains(c.key) else {
                throw FleetError(
                    "--compare \(c.description): no cohort key \(c.key); keys: \(keys.joined(separator: ", "))")
            }
            for v in [c.baseline, c.candidate] where !entries.contains(where: { $0.value(c.key) == v }) {
                throw FleetError("--compare \(c.description): no log has \(c.key)=\(v)")
            }
        }
        return (keys, entries)
    }

    /// Replays every log (`jobs` at a time, results consumed in manifest order so the analysis does
    /// not depend on `jobs`), keeping only a `FleetLogSummary` per log.
    package static func execute(_ request: FleetRequest) throws -> FleetAnalysis {
        try execute(request, prepared: try prepare(request))
    }

    /// `execute` on what `prepare` returned.
    package static func execute(
        _ request: FleetRequest, prepared: (keys: [String], entries: [FleetEntry])
    ) throws -> FleetAnalysis {
        let (keys, entries) = prepared
        let band = request.rule.flutterBand
        var summaries: [FleetLogSummary] = []
        summaries.reserveCapacity(entries.count)
        var cohortValues: [[String]: [String]] = [:]
        try WorkPool.forEachInOrder(
            count: entries.count, jobs: max(1, request.jobs), window: 4 * max(1, request.jobs),
            { i throws -> FleetLogSummary in
                let e = entries[i]
                let log: DeviceLog
                do {
                    log = try DeviceLogImporter.load(path: e.path, format: request.format, options: request.readOptions)
                } catch { throw FleetError("\(e.origin): \(error)") }
                let replay: DeviceReplayResult
                do {
                    replay = try DeviceReplay.run(
                        log, center: request.fence, rule: request.rule, input: request.input, maxAge_s: request.maxAge_s
                    )
                } catch { throw FleetError("\(e.origin): \(error)") }
                return FleetLogSummary(
                    index: i, name: e.name, values: keys.map { e.value($0) ?? "" }, replay: replay, events: log.events,
                    band: band)
            },
            consume: { _, s in
                // The logs of a cohort share one array of its values (memory: one summary per log).
                var s = s
                if let shared = cohortValues[s.values] { s.values = shared } else { cohortValues[s.values] = s.values }
                summaries.append(s)
            })
        return FleetAnalysis.analyse(
            keys: keys, summaries: summaries, comparison: request.comparison, gates: request.gates, seed: request.seed)
    }
}

extension FleetRun {
    /// Writes the fleet report to `folder`, with the replay page of each of the worst logs, each
    /// replayed again from its file (only summaries are kept during the run).
    package static func write(
        _ analysis: FleetAnalysis, request: FleetRequest, entries: [FleetEntry], to folder: String
    ) throws {
        var pages: [[UInt8]] = []
        for s in analysis.worst {
            let e = entries[s.index]
            let log = try DeviceLogImporter.load(path: e.path, format: request.format, options: request.readOptions)
            let result = try DeviceReplay.run(
                log, center: request.fence, rule: request.rule, input: request.input, maxAge_s: request.maxAge_s)
            let files = ReportWriter.render(RunReport.replay(result, logPath: e.name))
            pages.append(files.first { $0.name == "index.html" }?.bytes ?? [])
        }
        try FleetReportWriter.write(analysis, replayPages: pages, to: folder)
    }
}
