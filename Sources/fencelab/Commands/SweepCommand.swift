import FenceLab
import Foundation

/// `fencelab sweep [PATH...] --enter A:B:STEP --exit A:B:STEP ...`
enum SweepCommand: Command {
    static let name = "sweep"
    static let summary = "Tune thresholds: evaluate a grid of rule settings, trade-off frontier, recommendation."
    static let arguments = "[PATH...]"
    static let options = [
        OptionDeclaration("--enter", .text("A:B:STEP"), required: true, help: """
            Enter radii in metres (A to B inclusive). For threshold and
            conservative this is the radius and the only radius used.
            """),
        OptionDeclaration("--exit", .text("A:B:STEP"), help: """
            Exit radii in metres (hysteresis only, where it is required; pairs
            with exit <= enter are left out). Ignored for threshold and conservative.
            """),
        OptionDeclaration("--max-accuracy", .text("LIST"),
                          help: "Accuracy gates in metres, e.g. 25,30,50 (hysteresis only; default 30)."),
        OptionDeclaration("--confirm", .text("LIST"), help: "Consecutive agreeing fixes before a change, e.g. 1,2,3 (default 1)."),
        OptionDeclaration("--rule", .choice(SweepRuleKind.allCases.map(\.rawValue)), default: SweepRuleKind.hysteresis.rawValue,
                          help: "The rule family"),
        OptionDeclaration("--max-latency", .number("S", .nonNegative), default: OptionDeclaration.defaultText(SweepRequest.defaultMaxLatency_s),
                          help: "Objective: median latency bound in seconds"),
        OptionDeclaration("--shard", .text("K/N"), help: """
            Run only the work items with index = K (mod N), 0 <= K < N, and
            write a shard folder (shard.json + items.jsonl) for `fencelab merge`.
            """),
        OptionDeclaration("--resume", .flag, help: "Keep the work items an interrupted run finished (DIR's resume file)."),
        OptionDeclaration("--max-points", .integer("N", 1...100_000_000), default: "\(SweepGrid.defaultLimit)",
                          help: "Refuse grids with more than N points"),
        OptionDeclaration("--force", .flag, help: "Allow any number of grid points (overrides --max-points)."),
        RunCommand.out("reports/sweep"),
    ] + RunCommand.common
    static let refused = Dictionary(uniqueKeysWithValues: RunCommand.engine.map {
        ($0.name, "sweeps evaluate the built-in FenceMonitor")
    })
    static let discussion = """
        Evaluates every rule setting of the grid on the scenarios (files or folders; default
        scenarios/). Each scenario × replicate drive is generated once and every setting is run
        on it (common random numbers: differences between settings are due to the rule). Per
        setting and scenario: spurious, missed, flaps and median/p95 latency (mean and 95 % CI
        over replicates), the Pareto frontier and a recommended setting. The seeds' 80/120/30
        is always evaluated and marked. Writes DIR/sweep.json, sweep.csv, sweep.md, index.html.
        """
    static let footer = """
        Objective: minimise mean spurious transitions subject to mean missed = 0 and mean median
        latency <= --max-latency; ties to lower latency, then the narrower band.
        EXIT: 0 done, 2 bad input (grid values, scenario file, unwritable output, resume file of
        another sweep), 64 usage error (malformed or unknown option).
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
        if let s = arguments.option("--shard") {
            do { request.shard = try Shard(parsing: s) } catch { throw CLIError.usage("sweep: \(error)") }
        }
        request.resume = arguments.flag("--resume")
        request.onResume = { resumed, remaining, file in
            printError("fencelab: resumed \(resumed) finished work items from \(file); evaluating the remaining \(remaining)")
        }
        let out = arguments.option("--out")!
        let paths = arguments.positionals
        if !paths.isEmpty { request.paths = paths }

        InterruptNotice.install { InterruptNotice.sweepMessage(out: out) }
        let outcome: SweepJob.Outcome
        do { outcome = try SweepJob.sweep(request, out: out) } catch {
            throw CLIError.badInput("\(error)")
        }
        if let summary = outcome.summary {
            print(SweepTable.render(summary))
            print("Sweep: \(out)/index.html")
        } else if let shard = request.shard {
            print("Shard \(shard): \(outcome.run.records.count) work items written to \(out); combine all \(shard.count) with `fencelab merge`.")
        }
        return .success
    }

    /// The grid options. Malformed text is a usage error (64); well-formed but invalid values
    /// (STEP <= 0, empty range, exit <= enter everywhere, too many points) are bad input (2).
    static func parseGrid(_ arguments: Arguments) throws -> SweepGrid {
        let kind = SweepRuleKind(rawValue: arguments.option("--rule")!)!
        let enterText = arguments.option("--enter")!
        let exitText = arguments.option("--exit")
        if kind == .hysteresis, exitText == nil { throw CLIError.usage("sweep: --exit A:B:STEP is required for --rule hysteresis") }
        let accuracyText = arguments.option("--max-accuracy")
        let confirmText = arguments.option("--confirm")
        let force = arguments.flag("--force")
        let limit = arguments.integer("--max-points")!
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
            return try SweepGrid(kind: kind, enter: enter, exit: kind == .hysteresis ? exit : nil, maxAccuracy: accuracy,
                                 confirm: confirm, limit: force ? nil : limit)
        } catch {
            switch error {
            case .malformedRange, .malformedList: throw CLIError.usage("sweep: \(error)")
            default: throw CLIError.badInput("sweep: \(error)")
            }
        }
    }
}
