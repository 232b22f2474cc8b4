import FenceLab
import FenceLabSweep
import Foundation
import _CommandLineKit

/// `fencelab merge DIR... --out DIR`
enum MergeCommand: Command {
    static let name = "merge"
    static let summary = "Combine sweep shard folders into the output of one unsharded sweep."
    static let arguments = "SHARD_DIR|PARENT..."
    static let options = [
        OptionDeclaration(
            "--out", .text("DIR"), default: "reports/sweep",
            help: "Output folder; must not be an input or inside one"),
        OptionDeclaration(
            "--csv-gzip", .flag,
            help: "Write the per-point table gzip-compressed, as sweep.csv.gz instead of sweep.csv."),
    ]
    static let discussion = """
        Reads the folders written by `fencelab sweep --shard K/N --out SHARD_DIR` (shard.json +
        items.jsonl), checks that they come from one sweep (same tool version, grid, scenario
        file hashes, seeds, replicates, settings and N) and that every shard 0..N-1 is there
        exactly once and complete, then writes DIR/sweep.json, sweep.csv, sweep.md and
        index.html byte-identical to an unsharded run. Shards of a place-set sweep (shard.json
        of format fencelab-sweep-places-shard/1) merge into that sweep's four files the same way.

        Only folders holding shard.json are taken: give the shard folders or their parent
        (`fencelab merge shards --out reports/sweep` takes shards/*/shard.json); other folders
        and files there (logs, lost+found, an earlier output) are ignored and named on stderr.
        """
    static let footer = """
        EXIT: 0 merged, 2 mixed, missing, duplicate or incomplete shards (named), no shard folder,
        --out inside an input, 64 usage error.
        """

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let out = arguments.option("--out")!
        let inputs = arguments.positionals
        guard !inputs.isEmpty else {
            throw CLIError.usage(
                "merge: give the shard folders or their parent, e.g. `fencelab merge shards --out reports/sweep`")
        }
        let summary: SweepSummary
        do {
            let (folders, ignored) = try SweepMerge.selectShardFolders(inputs: inputs, out: out)
            if !ignored.isEmpty {
                printError(
                    "fencelab merge: ignored (no \(SweepMerge.manifestName)): \(ignored.joined(separator: ", "))")
            }
            if folders.contains(where: SweepPlacesShard.isPlaceShard) {
                if arguments.flag("--csv-gzip") {
                    throw CLIError.usage("merge: --csv-gzip is not evaluated by a place-set sweep")
                }
                let places = try SweepPlacesShard.merge(folders: folders, out: out)
                print(SweepPlacesOutput.terminal(places))
                print("Sweep: \(out)/index.html")
                return .success
            }
            summary = try SweepJob.merge(folders: folders, out: out, csvGzip: arguments.flag("--csv-gzip"))
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.badInput("\(error)")
        }
        print(SweepOutput.terminal(summary))
        print("Sweep: \(out)/index.html")
        return .success
    }
}
