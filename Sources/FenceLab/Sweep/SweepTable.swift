import Foundation

/// The terminal summary of a sweep (`fencelab sweep` and `fencelab merge` print it).
public enum SweepTable {
    /// The recommendation per scenario next to the seeds' 80/120/30.
    public static func render(_ s: SweepSummary) -> String {
        let points = s.manifest.points
        let ref = points.firstIndex(of: .seedReference)
        var lines = ["scenario | recommended | spurious | median latency s | 80/120/30 spurious | 80/120/30 latency s"]
        func f(_ v: Double?) -> String { v.map { String(format: "%.3g", $0) } ?? "-" }
        for sc in s.scenarios {
            let rec = sc.recommended.map { points[$0].label } ?? "none meets the objective"
            let r = sc.recommended.map { sc.cells[$0] }, c = ref.map { sc.cells[$0] }
            lines.append("\(sc.scenario.name) | \(rec) | \(f(r?.spurious.mean)) | \(f(r?.latencyMedian_s?.mean)) | "
                         + "\(f(c?.spurious.mean)) | \(f(c?.latencyMedian_s?.mean))")
        }
        return lines.joined(separator: "\n")
    }
}
