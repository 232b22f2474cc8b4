import FenceLab
import Foundation
import GeoPolicy

/// `fencelab sweep [PATH...] --enter A:B:STEP --exit A:B:STEP ...`
enum SweepCommand: Command {
    static let name = "sweep"
    static let summary = "Tune thresholds: one recommended setting for a weighted scenario mix, scored against each place."
    static let help = """
        USAGE: fencelab sweep [PATH...] --enter A:B:STEP [--exit A:B:STEP] [--max-accuracy LIST]
                              [--confirm LIST] [--rule hysteresis|threshold|conservative]
                              [--replicates N] [--seed N] [--jobs N] [--shard K/N] [--resume]
                              [--force | --max-points N] [--min-recall R] [--max-latency S]
                              [--weight NAME=W ...] [--match-slack S] [--input LIST] [--kalman-q LIST]
                              [--out DIR] [--progress]

        Evaluates every rule setting of the grid on the scenarios (files or folders; default
        scenarios/); every scenario must state its `place`. Each scenario × replicate drive is
        generated once and every setting is run on it (common random numbers). Per setting and
        scenario: visits against the place (recall, false visits and fragments per hour, p95
        entry/exit latency) and flutter (spurious, missed, flaps, latency), mean and 95 % CI over
        replicates. ONE recommended setting for the whole weighted mix, with its reasons, and the
        mix frontier. The seeds' 80/120/30 is always evaluated and shown beside it.
        Writes DIR/sweep.json, sweep.csv, sweep.md, index.html.

        OPTIONS:
          --enter A:B:STEP       Enter radii in metres (A to B inclusive). For threshold and
                                 conservative this is the radius and the only radius used.
          --exit A:B:STEP        Exit radii in metres (hysteresis only; pairs with exit <= enter
                                 are left out). Ignored for threshold and conservative.
          --max-accuracy LIST    Accuracy gates in metres, e.g. 25,30,50 (hysteresis only; default 30).
          --confirm LIST         Consecutive agreeing fixes before a change, e.g. 1,2,3 (default 1).
          --rule KIND            hysteresis (default), threshold or conservative.
          --input LIST           What the rules decide on, e.g. raw,kalman,imm (default raw): raw fixes, or
                                 the Kalman (constant velocity) or IMM (stop and go) filter's causal
                                 estimate with its covariance accuracy. Crossed with every setting.
          --kalman-q LIST        Process noise q of the filtered inputs in m²/s³, e.g. 0.1,1,3 (default 1;
                                 each filtered input once per q). sweep.md names per scenario the q with
                                 the smallest filter RMSE.
          --min-recall R         Constraint: recall >= R in every scenario with true visits (0..1, default 0.95).
          --max-latency S        Constraint: p95 entry latency <= S seconds in every scenario with true
                                 visits, early entries counted as 0 (default 60).
          --weight NAME=W        Weight of scenario NAME in the mix (W > 0; repeatable; default: the
                                 file's `weight`, else 1).
          --match-slack S        Widen each true visit by S seconds on both sides when matching (default 60).
          --replicates N         Override every scenario's replicate count (N >= 1).
          --seed N               Override every scenario's seed (N >= 1).
          --jobs N               Worker threads (default: all cores); results identical for any N.
          --shard K/N            Run only the work items with index = K (mod N), 0 <= K < N, and
                                 write a shard folder (shard.json + items.jsonl) for `fencelab merge`.
          --resume               Keep the work items an interrupted run finished (DIR's resume file).
          --max-points N         Refuse grids with more than N points (default \(SweepGrid.defaultLimit)).
          --force                Allow any number of grid points.
          --window S             Flutter matching window in seconds (default 60).
          --max-age S            Fixes older than S seconds relative to `now` are stale (default 30).
          --out DIR              Output folder (default reports/sweep).
          --progress             Progress on stderr even when it is not a terminal.

        Objective: minimise the weighted mean of false + fragment visits per hour subject to the
        two constraints; ties to the lower worst-scenario p95 entry latency, then the higher worst
        recall, then the lower point id. A setting that misses every visit is never recommended.
        EXIT: 0 done, 2 bad input (grid values, weights, scenario file or missing place, unwritable
        output, resume file of another sweep), 64 usage error (malformed or unknown option).
        """

    static func run(_ arguments: inout Arguments) throws -> ExitCode {
        var request = SweepRequest(grid: try parseGrid(&arguments))
        var common = RunRequest()
        try RunCommand.parseCommon(&arguments, into: &common)
        guard common.settings.engine == nil else {
            throw CLIError.usage("sweep: --engine is not supported; sweeps evaluate the built-in FenceMonitor")
        }
        request.replicates = common.replicates
        request.seed = common.seed
        request.jobs = common.jobs
        request.settings = common.settings
        request.forceProgress = common.forceProgress
        if let l = try arguments.option("--max-latency") {
            request.maxLatency_s = try parseDouble(l, name: "--max-latency")
            guard request.maxLatency_s >= 0 else { throw CLIError.badInput("--max-latency: must be >= 0, got \(l)") }
        }
        if let r = try arguments.option("--min-recall") {
            request.minRecall = try parseDouble(r, name: "--min-recall")
            guard request.minRecall >= 0, request.minRecall <= 1 else {
                throw CLIError.badInput("--min-recall: must be within 0...1, got \(r)")
            }
        }
        for w in try arguments.options("--weight") {
            let parts = w.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw CLIError.usage("sweep: --weight needs NAME=W, got '\(w)'") }
            let value = try parseDouble(String(parts[1]), name: "--weight \(parts[0])")
            guard value > 0 else { throw CLIError.badInput("--weight \(parts[0]): must be > 0, got \(parts[1])") }
            request.weights[String(parts[0])] = value
        }
        if let s = try arguments.option("--shard") {
            do { request.shard = try Shard(parsing: s) } catch { throw CLIError.usage("sweep: \(error)") }
        }
        request.resume = arguments.flag("--resume")
        request.onResume = { resumed, remaining, file in
            printError("fencelab: resumed \(resumed) finished work items from \(file); evaluating the remaining \(remaining)")
        }
        let out = try arguments.option("--out") ?? "reports/sweep"
        let paths = try arguments.positionals()
        if !paths.isEmpty { request.paths = paths }

        InterruptNotice.install { InterruptNotice.sweepMessage(out: out) }
        let outcome: SweepJob.Outcome
        do { outcome = try SweepJob.sweep(request, out: out) } catch {
            throw CLIError.badInput("\(error)")
        }
        if let summary = outcome.summary {
            print(SweepOutput.terminal(summary))
            print("Sweep: \(out)/index.html")
        } else if let shard = request.shard {
            print("Shard \(shard): \(outcome.run.records.count) work items written to \(out); combine all \(shard.count) with `fencelab merge`.")
        }
        return .success
    }

    /// The grid options. Malformed text is a usage error (64); well-formed but invalid values
    /// (STEP <= 0, empty range, exit <= enter everywhere, too many points) are bad input (2).
    static func parseGrid(_ arguments: inout Arguments) throws -> SweepGrid {
        let kindText = try arguments.option("--rule") ?? "hysteresis"
        guard let kind = SweepRuleKind(rawValue: kindText) else {
            throw CLIError.usage("sweep: --rule must be hysteresis, threshold or conservative, got '\(kindText)'")
        }
        guard let enterText = try arguments.option("--enter") else { throw CLIError.usage("sweep: --enter A:B:STEP is required") }
        let exitText = try arguments.option("--exit")
        if kind == .hysteresis, exitText == nil { throw CLIError.usage("sweep: --exit A:B:STEP is required for --rule hysteresis") }
        let accuracyText = try arguments.option("--max-accuracy")
        let confirmText = try arguments.option("--confirm")
        let force = arguments.flag("--force")
        let limit = try arguments.intOption("--max-points", in: 1...100_000_000) ?? SweepGrid.defaultLimit
        var inputs: [FenceInput.Kind] = [.raw]
        if let text = try arguments.option("--input") {
            inputs = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let kind = FenceInput.Kind(rawValue: part.trimmingCharacters(in: .whitespaces)) else {
                    throw CLIError.usage("sweep: --input: expected a comma-separated list of raw, kalman, imm, got '\(text)'")
                }
                if !inputs.contains(kind) { inputs.append(kind) }
            }
        }
        let qText = try arguments.option("--kalman-q")
        do throws(SweepGridError) {
            let enter = try SweepRange(parsing: enterText, option: "--enter")
            let exit = try exitText.map { text throws(SweepGridError) in try SweepRange(parsing: text, option: "--exit") }
            let accuracy = try accuracyText.map { text throws(SweepGridError) in try parseSweepList(text, option: "--max-accuracy") } ?? [30]
            var confirm: [Int] = [1]
            if let confirmText {
                confirm = []
                for v in try parseSweepList(confirmText, option: "--confirm") {
                    guard v == v.rounded(), abs(v) < 1e9 else {
                        throw SweepGridError.malformedList(option: "--confirm", text: confirmText + " (whole numbers of fixes)")
                    }
                    confirm.append(Int(v))
                }
            }
            let q = try qText.map { text throws(SweepGridError) in try parseSweepList(text, option: "--kalman-q") }
                ?? [FenceInput.defaultAccelerationDensity_m2ps3]
            return try SweepGrid(kind: kind, enter: enter, exit: kind == .hysteresis ? exit : nil, maxAccuracy: accuracy,
                                 confirm: confirm, inputs: inputs, kalmanQ: q, limit: force ? nil : limit)
        } catch {
            switch error {
            case .malformedRange, .malformedList: throw CLIError.usage("sweep: \(error)")
            default: throw CLIError.badInput("sweep: \(error)")
            }
        }
    }
}
