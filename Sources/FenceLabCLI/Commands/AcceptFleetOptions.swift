import FenceLab
import GeoPolicy
import _CommandLineKit

/// The fleet options of `fencelab accept`: `--device-logs`, `--compare`, `--gate`, `--fleet-out`.
enum AcceptFleetOptions {
    static let declarations = [
        OptionDeclaration(
            "--device-logs", .text("DIR|MANIFEST"),
            help: """
                A fleet: a manifest CSV (file,device,os,app[,…]; extra columns are cohort keys,
                paths relative to it) or a folder of logs with LOG.meta.json sidecars. Figures per
                cohort with 95 % intervals (docs/fleet.md); needs one --fence.
                """),
        OptionDeclaration(
            "--compare", .text("KEY=A..B"),
            help: "Compare cohort key KEY: baseline A against candidate B, per figure and cohort (Holm)."),
        OptionDeclaration(
            "--gate", .text("FIGURE:LIMIT"), repetition: .each,
            help: """
                Fail (exit 1) when the candidate is worse than the baseline by more than LIMIT
                (figure's unit) at 95 %, Holm over figures and cohorts; repeatable. Needs --compare.
                """),
        OptionDeclaration(
            "--fleet-out", .text("DIR"), default: "reports/fleet",
            help: "Folder of the fleet report (with --device-logs)."),
    ]

    /// The fleet request, nil without --device-logs. Throws usage errors for malformed values.
    static func parse(_ arguments: Arguments, fences: [Coordinate], jobs: Int, seed: UInt64?) throws -> FleetRequest? {
        let compareText = arguments.option("--compare")
        let gateTexts = arguments.options("--gate")
        guard let source = arguments.option("--device-logs") else {
            if compareText != nil || !gateTexts.isEmpty {
                throw CLIError.usage("accept: --compare and --gate need --device-logs DIR|MANIFEST")
            }
            return nil
        }
        if arguments.option("--places") != nil {
            throw CLIError.usage(
                "accept: --places is not supported with --device-logs (the fleet takes one --fence LAT,LON for every log)"
            )
        }
        guard fences.count == 1 else {
            throw CLIError.usage("accept: --device-logs needs exactly one --fence LAT,LON (got \(fences.count))")
        }
        var request = FleetRequest(source: source, fence: fences[0])
        if let compareText {
            guard let spec = FleetComparisonSpec(parsing: compareText) else {
                throw CLIError.usage("accept: --compare \(compareText): expected KEY=A..B with A ≠ B")
            }
            request.comparison = spec
        }
        for text in gateTexts {
            guard let colon = text.lastIndex(of: ":"), let limit = Double(text[text.index(after: colon)...]),
                limit.isFinite, colon != text.startIndex
            else {
                throw CLIError.usage("accept: --gate \(text): expected FIGURE:LIMIT with a finite number LIMIT")
            }
            request.gates.append(FleetGate(figure: String(text[..<colon]), limit: limit))
        }
        request.jobs = jobs
        request.seed = seed ?? 0
        return request
    }
}

/// The fleet half of `fencelab accept`: analysed before the acceptance report is written (a bad
/// log or manifest line writes nothing), written and printed after it.
enum AcceptFleetCommand {
    struct Pending {
        var request: FleetRequest
        var entries: [FleetEntry]
        var analysis: FleetAnalysis
        var out: String
    }

    /// Checks the fleet, its options and `out`, then replays and analyses every log.
    static func analyse(_ request: FleetRequest, out: String) throws -> Pending {
        do {
            let prepared = try FleetRun.prepare(request)
            try FleetReportWriter.preflight(out)
            let analysis = try FleetRun.execute(request, prepared: prepared)
            return Pending(request: request, entries: prepared.entries, analysis: analysis, out: out)
        } catch let error as FleetError {
            throw CLIError.badInput(error.description)
        } catch { throw CLIError.badInput("--fleet-out \(out): \(error)") }
    }

    /// Writes the fleet report, prints its lines; true when every gate passed.
    static func finish(_ pending: Pending) throws -> Bool {
        do {
            try FleetRun.write(pending.analysis, request: pending.request, entries: pending.entries, to: pending.out)
        } catch { throw CLIError.badInput("\(error)") }
        for line in FleetReportWriter.lines(pending.analysis) { print(line) }
        print("Fleet report: \(pending.out)/index.html")
        return pending.analysis.gatePassed
    }
}
