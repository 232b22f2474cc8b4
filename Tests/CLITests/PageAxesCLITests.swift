import Foundation
import Testing
import _TestSupport

/// Every page kind the README's commands write — run, accept, replay, sweep, calibrate — read as
/// SVG text: every numeric axis label sits on a grid of one nice step (`AxisLabelCheck`).
@Suite struct PageAxesCLITests {
    static func tempDir(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-axes-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// (page kind, command line before `--out DIR`, the page written into DIR, exit codes allowed).
    static let pages: [(String, [String], String, Set<Int32>)] = [
        ("run", ["run", "--replicates", "2"], "index.html", [0, 1]),
        (
            "accept",
            [
                "accept", "scenarios/urban-canyon.json", "--replicates", "2", "--device-log",
                "scenarios/device-logs/synthetic-drive-fiji.csv", "--fence=-16.8075,180",
            ], "index.html", [0, 1]
        ),
        (
            "replay", ["replay", "scenarios/device-logs/synthetic-drive-fiji.csv", "--fence=-16.8075,180"],
            "index.html", [0, 1]
        ),
        (
            "sweep",
            [
                "sweep", "scenarios/tuning", "--enter", "70:90:10", "--exit", "110:150:20", "--confirm", "1,2",
                "--replicates", "2",
            ],
            "index.html", [0]
        ),
        (
            "calibrate",
            ["calibrate", "docs/examples/calibration-phone-1h.csv", "--replicates", "20", "--drives", "99"],
            "calibration.html", [0]
        ),
    ]

    @Test(arguments: 0..<pages.count)
    func everyNumericAxisLabelIsOnItsGrid(_ index: Int) throws {
        let (kind, arguments, page, codes) = Self.pages[index]
        let dir = Self.tempDir(kind)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runFencelab(arguments + ["--out", dir.path])
        #expect(codes.contains(r.status), "\(kind): \(r.stderr)")
        let html = try String(contentsOf: dir.appendingPathComponent(page), encoding: .utf8)
        let axes = AxisLabelCheck.axes(in: html)
        // Pages with plots have labelled axes (a page without them would pass vacuously).
        #expect(!axes.isEmpty || kind == "replay", "\(kind): no labelled axis")
        #expect(axes.allSatisfy { $0.labels.count >= 2 }, "\(kind): \(axes.filter { $0.labels.count < 2 })")
        let problems = AxisLabelCheck.problems(in: html)
        #expect(problems.isEmpty, "\(kind): \(problems.joined(separator: "\n"))")
        #expect(!html.contains("<script"), "\(kind): pages carry no script")
        // The sweep's plots label the recommendation and 80/120/30 (so the overprint check has work).
        #expect(kind != "sweep" || html.contains("class=\"mark-label\""), "\(kind): no marker label")
        let overprints = AxisLabelCheck.overprints(in: html)
        #expect(overprints.isEmpty, "\(kind): \(overprints.joined(separator: "\n"))")
    }

    /// The overprint check sees the flutter plot's "80/120/30" over the y axis's "0".
    @Test func theOverprintCheckSeesALabelOverATickLabel() {
        let plot =
            "<svg><text class=\"tick-y\" x=\"48.0\" y=\"276.0\" text-anchor=\"end\">0</text>"
            + "<text class=\"mark-label\" x=\"30.0\" y=\"278.0\">80/120/30</text>"
            + "<text class=\"mark-label\" x=\"120.0\" y=\"278.0\">recommended</text></svg>"
        #expect(AxisLabelCheck.overprints(in: plot).count == 1, "\(AxisLabelCheck.overprints(in: plot))")
        #expect(AxisLabelCheck.labelBoxes(in: plot).first?.count == 3)
    }
}
