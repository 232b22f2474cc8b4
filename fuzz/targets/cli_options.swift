// libFuzzer entry for the option values the CLI parses into grids and rules:
// `sweep --enter/--exit A:B:STEP`, `--max-accuracy/--confirm LIST`, `--shard K/N`, `--rule SPEC`.
// fuzz-links: FenceLab
// fuzz-sources:
// The input is up to five option values separated by newlines. Any SweepGridError or
// RuleSpecError is a correct outcome; a crash (a trapping conversion such as STEP 1e-17),
// a hang or a sanitizer report is a bug. Properties: a parsed range has 1…10^6 finite values
// starting at A in increasing order; a parsed shard has 0 ≤ K < N; a parsed rule prints as a
// spec that parses back to the same rule; a grid respects its point limit; every error is one
// bounded line.
import FenceLab
import FenceLabSweep
import GeoPolicy

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
    func part(_ i: Int) -> String { i < parts.count ? parts[i] : "" }

    var enter: SweepRange?
    do {
        let r = try SweepRange(parsing: part(0), option: "--enter")
        precondition(!r.values.isEmpty && r.values.count <= SweepRange.maxValues, "range of \(r.values.count) values")
        precondition(r.values.allSatisfy(\.isFinite), "non-finite range value")
        precondition(
            zip(r.values, r.values.dropFirst()).allSatisfy { $0 < $1 } || r.values.count == 1, "range not increasing")
        enter = r
    } catch { bounded(error.description) }
    var accuracy: [Double] = [30]
    do { accuracy = try parseSweepList(part(1), option: "--max-accuracy") } catch { bounded(error.description) }
    do {
        let shard = try Shard(parsing: part(2))
        precondition(shard.index >= 0 && shard.index < shard.count, "shard \(shard.index)/\(shard.count)")
    } catch { bounded(error.description) }
    do {
        let rule = try RuleSpec.parse(part(3))
        let again = try RuleSpec.parse(rule.description)
        precondition(again == rule, "rule \(rule) does not round-trip through its spec")
    } catch { bounded("\(error)") }
    if let enter {
        do {
            let exit = try SweepRange(parsing: part(4), option: "--exit")
            let grid = try SweepGrid(
                kind: .hysteresis, enter: enter, exit: exit, maxAccuracy: accuracy, confirm: [1], limit: 10_000)
            precondition(grid.points.count <= 10_000, "grid over its limit")
        } catch { bounded(error.description) }
    }
    return 0
}

private func bounded(_ text: String) {
    precondition(!text.contains("\n"), "error spans several lines")
    precondition(text.utf8.count <= 4096, "error message is unbounded (\(text.utf8.count) bytes)")
}
