import FenceLab
import FenceLabSweep
import Foundation
import GeoPolicy
import _CommandLineKit
import _FenceLabSupport

/// `fencelab sweep [PATH...] --enter A:B:STEP --exit A:B:STEP ...`
enum SweepCommand: Command {
    static let name = "sweep"
    static let summary =
        "Tune thresholds: one recommended setting for a weighted scenario mix, scored against each place."
    static let arguments = "[PATH...]"
    static let options =
        [
            OptionDeclaration(
                "--enter", .text("A:B:STEP"), required: true,
                help: """
                    Enter radii in metres (A to B inclusive). For threshold and
                    conservative this is the radius and the only radius used.
                    """),
            OptionDeclaration(
                "--exit", .text("A:B:STEP"),
                help: """
                    Exit radii in metres (hysteresis only, where it is required; pairs
                    with exit <= enter are left out). Ignored for threshold and conservative.
                    """),
            OptionDeclaration(
                "--max-accuracy", .text("LIST"),
                help: "Accuracy gates in metres, e.g. 25,30,50 (hysteresis only; default 30)."),
            OptionDeclaration(
                "--confirm", .text("LIST"), help: "Consecutive agreeing fixes before a change, e.g. 1,2,3 (default 1)."),
            OptionDeclaration(
                "--confirm-s", .text("LIST"),
                help: """
                    Seconds the agreeing fixes must span as well, e.g. 0,10,30 (default 0:
                    none); with --confirm N > 1 a change needs N fixes AND the seconds.
                    """),
            OptionDeclaration(
                "--rule", .choice(SweepRuleKind.allCases.map(\.rawValue)), default: SweepRuleKind.hysteresis.rawValue,
                help: "The rule family"),
            OptionDeclaration(
                "--input", .text("LIST"),
                help: """
                    What the rules decide on, e.g. raw,kalman,imm (default raw): raw fixes, or
                    the Kalman (constant velocity) or IMM (stop and go) filter's causal
                    estimate with its covariance accuracy. Crossed with every setting.
                    """),
            OptionDeclaration(
                "--kalman-q", .text("LIST"),
                help: """
                    Process noise q of the filtered inputs in m²/s³, e.g. 0.1,1,3 (default 1;
                    each filtered input once per q). sweep.md names per scenario the q with
                    the smallest filter RMSE.
                    """),
            OptionDeclaration(
                "--sampling", .text("LIST"),
                help: """
                    Sampling policies to cross with every setting, e.g.
                    all,interval:30,interval:120,distance:50,interval:60+batch:300
                    (default: each scenario's own sampling.policy). Every policy is
                    applied to the same generated drive; the truth stays the noiseless
                    track at the base rate. Policies: docs/scenario-format.md.
                    """),
            OptionDeclaration(
                "--notify", .text("LIST"),
                help: """
                    Notification policies to cross with every setting, e.g.
                    none,dwell:300,cooldown:600,dwell:300+cooldown:600. Each point is then
                    scored on what the user is told (notifications per true visit, unwanted
                    notifications per hour, dwell recall, false dwells), and the objective's
                    unwanted figure is unwanted notifications per hour.
                    """),
            OptionDeclaration(
                "--min-recall", .number("R", .within(0...1)),
                default: OptionDeclaration.defaultText(SweepRequest.defaultMinRecall),
                help: "Constraint: recall >= R in every scenario with true visits"),
            OptionDeclaration(
                "--max-latency", .number("S", .nonNegative),
                default: OptionDeclaration.defaultText(SweepRequest.defaultMaxLatency_s),
                help: """
                    Constraint: p95 entry latency <= S seconds in every scenario with true
                    visits, early entries counted as 0
                    """),
            OptionDeclaration(
                "--max-exit-latency", .number("S", .nonNegative),
                help: """
                    Constraint: p95 exit latency <= S seconds in every scenario that leaves
                    the place (default: none). Without such a scenario it constrains
                    nothing, and the recommendation says so.
                    """),
            OptionDeclaration(
                "--max-unwanted", .number("U", .nonNegative),
                help: """
                    Constraint: at most U unwanted (false + fragment) visits per hour over
                    the weighted mix, unwanted notifications with --notify (default: the
                    fewest any setting meeting the other constraints reaches); the cheapest
                    setting within it is recommended.
                    """),
            OptionDeclaration(
                "--cost", .text("fix=A,wakeup=B"),
                help: """
                    The cost minimised: A per fix + B per wake-up delivered, per hour
                    (default fix=1,wakeup=0: fixes per hour; A, B >= 0).
                    """),
            OptionDeclaration(
                "--weight", .text("NAME=W"), repetition: .each,
                help: """
                    Weight of scenario NAME in the mix (W > 0; repeatable; default: the
                    file's `weight`, else 1).
                    """),
            OptionDeclaration(
                "--shard", .text("K/N"),
                help: """
                    Run only the work items with index = K (mod N), 0 <= K < N, and
                    write a shard folder (shard.json + items.jsonl) for `fencelab merge`.
                    """),
            OptionDeclaration(
                "--resume", .flag, help: "Keep the work items an interrupted run finished (DIR's resume file)."),
            OptionDeclaration(
                "--checkpoint-after", .number("S", .nonNegative),
                default: OptionDeclaration.defaultText(SweepRequest.defaultCheckpointAfter_s),
                help: """
                    Start the resume file after S seconds of work (0: from the first drive);
                    a sweep that ends sooner writes none, and one interrupted sooner keeps
                    nothing
                    """),
            OptionDeclaration(
                "--csv-gzip", .flag,
                help: "Write the per-point table gzip-compressed, as sweep.csv.gz instead of sweep.csv."),
            OptionDeclaration(
                "--max-points", .integer("N", 1...100_000_000), default: "\(SweepGrid.defaultLimit)",
                help: "Refuse grids with more than N points"),
            OptionDeclaration(
                "--force", .flag,
                help: "Lift every grid limit (--max-points, 10^6 values a range); what cannot fit in memory is refused."
            ),
            RunCommand.out("reports/sweep"),
        ] + SweepPlacesOptions.options + RunCommand.common
    static let refused = Dictionary(
        uniqueKeysWithValues: RunCommand.engine.map {
            ($0.name, "sweeps evaluate the built-in FenceMonitor")
        })
    static let discussion = """
        Evaluates every rule setting of the grid on the scenarios (files or folders; default
        scenarios/); every scenario must state its `place`, or the one scenario its place set
        (`places`: the grid crossed with --budget x --refresh, docs/sweeps.md "Sweeps over place
        sets"). Each scenario × replicate drive is
        generated once and every setting is run on it (common random numbers). Per setting and
        scenario: visits against the place (recall, false visits and fragments per hour, p95
        entry/exit latency) and flutter (spurious, missed, flaps, latency), mean and 95 % CI over
        replicates. ONE recommended setting for the whole weighted mix, with its reasons, and the
        mix frontier. The seeds' 80/120/30 is always evaluated and shown beside it.
        Writes DIR/sweep.json, sweep.csv (sweep.csv.gz with --csv-gzip), sweep.md, index.html;
        above \(SweepDigest.fullFormLimit_points) grid points sweep.json and index.html list a
        bounded selection (the recommendation, frontiers, top settings, best per axis value) and
        sweep.csv every point.
        """
    static let footer = """
        Objective: among the settings that meet the constraints and have the fewest unwanted
        (false + fragment) visits per hour (or at most --max-unwanted), the lowest weighted cost
        (fixes per hour unless --cost); ties to fewer unwanted visits, the lower worst-scenario
        p95 entry latency, the higher worst recall, then the lower point id. At one sampling
        policy every setting costs the same, so this is the fewest unwanted visits. A setting
        that misses every visit is never recommended.
        EXIT: 0 done, 2 bad input (grid values, weights, scenario file or missing place, unwritable
        output, resume file of another sweep), 64 usage error (malformed or unknown option).
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        var request = SweepRequest(grid: try parseGrid(arguments))
        var common = RunRequest()
        RunCommand.parseCommon(arguments, into: &common)
        request.replicates = common.replicates
        request.seed = common.seed
        request.jobs = common.jobs
        request.settings = common.settings
        request.forceProgress = common.forceProgress
        request.maxLatency_s = arguments.number("--max-latency")!
        request.minRecall = arguments.number("--min-recall")!
        request.maxExitLatency_s = arguments.number("--max-exit-latency")
        request.maxUnwanted = arguments.number("--max-unwanted")
        if let text = arguments.option("--cost") {
            do { request.cost = try CostWeights(parsing: text) } catch {
                throw error.isMalformed ? CLIError.usage("sweep: \(error)") : CLIError.badInput("sweep: \(error)")
            }
        }
        for w in arguments.options("--weight") {
            let parts = w.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw CLIError.usage("sweep: --weight needs NAME=W, got '\(w)'")
            }
            let value = try ArgumentValue.double(String(parts[1]), name: "--weight \(parts[0])")
            guard value > 0 else { throw CLIError.badInput("--weight \(parts[0]): must be > 0, got \(parts[1])") }
            request.weights[String(parts[0])] = value
        }
        if let s = arguments.option("--shard") {
            do { request.shard = try Shard(parsing: s) } catch { throw CLIError.usage("sweep: \(error)") }
        }
        request.resume = arguments.flag("--resume")
        request.checkpointAfter_s = arguments.number("--checkpoint-after")!
        request.csvGzip = arguments.flag("--csv-gzip")
        request.onResume = { resumed, remaining, file in
            printError(
                "fencelab: resumed \(resumed) finished work items from \(file); evaluating the remaining \(remaining)")
        }
        let out = arguments.option("--out")!
        let paths = arguments.positionals
        if !paths.isEmpty { request.paths = paths }

        let placeOptions = try SweepPlacesOptions.parse(arguments)
        do {
            switch try SweepPlaces.sweepIfPlaces(request, options: placeOptions, out: out) {
            case .summary(let places)?:
                print(SweepPlacesOutput.terminal(places))
                print("Sweep: \(out)/index.html")
                return .success
            case .shard(let shard, let items)?:
                print(
                    "Shard \(shard): \(items) work items written to \(out); combine all \(shard.count) with `fencelab merge`."
                )
                return .success
            case nil: break
            }
        } catch let error as SweepPlacesError where error.isUsage {
            throw CLIError.usage("sweep: \(error)")
        } catch { throw CLIError.badInput("\(error)") }
        InterruptNotice.install { [checkpointAfter_s = request.checkpointAfter_s] in
            InterruptNotice.sweepMessage(
                resumeFile: SweepRunner.partialPath(out: out), checkpointAfter_s: checkpointAfter_s)
        }
        let outcome: SweepJob.Outcome
        do { outcome = try SweepJob.sweep(request, out: out) } catch {
            throw CLIError.badInput("\(error)")
        }
        if let summary = outcome.summary {
            print(SweepOutput.terminal(summary))
            print("Sweep: \(out)/index.html")
        } else if let shard = request.shard {
            print(
                "Shard \(shard): \(outcome.run.records.count) work items written to \(out); combine all \(shard.count) with `fencelab merge`."
            )
        }
        return .success
    }

    /// The grid options. Malformed text is a usage error (64); well-formed but invalid values
    /// (STEP <= 0, empty range, exit <= enter everywhere, too many points) are bad input (2).
    static func parseGrid(_ arguments: Arguments) throws -> SweepGrid {
        let kind = SweepRuleKind(rawValue: arguments.option("--rule")!)!
        let enterText = arguments.option("--enter")!
        let exitText = arguments.option("--exit")
        if kind == .hysteresis, exitText == nil {
            throw CLIError.usage("sweep: --exit A:B:STEP is required for --rule hysteresis")
        }
        let accuracyText = arguments.option("--max-accuracy")
        let confirmText = arguments.option("--confirm")
        let force = arguments.flag("--force")
        let limit = arguments.integer("--max-points")!
        var inputs: [FenceInput.Kind] = [.raw]
        if let text = arguments.option("--input") {
            inputs = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let kind = FenceInput.Kind(rawValue: part.trimmingCharacters(in: .whitespaces)) else {
                    throw CLIError.usage(
                        "sweep: --input: expected a comma-separated list of raw, kalman, imm, got '\(text)'")
                }
                if !inputs.contains(kind) { inputs.append(kind) }
            }
        }
        let qText = arguments.option("--kalman-q")
        do throws(SweepGridError) {
            return try SweepGrid(
                parsing: kind, enter: enterText, exit: exitText, maxAccuracy: accuracyText, confirm: confirmText,
                inputs: inputs, kalmanQ: qText, sampling: arguments.option("--sampling"),
                confirmSeconds: arguments.option("--confirm-s"), notify: arguments.option("--notify"),
                limit: force ? nil : limit)
        } catch {
            if error.isMalformed { throw CLIError.usage("sweep: \(error)") }
            throw CLIError.badInput("sweep: \(error)")
        }
    }
}
