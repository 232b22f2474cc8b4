import FenceLab
import Foundation
import ReportKit
import _FenceLabSupport

/// The files of a place-set sweep: sweep.json, sweep.csv, sweep.md, index.html (docs/sweeps.md
/// "Sweeps over place sets"). Place names only, never coordinates; no timestamps.
package enum SweepPlacesOutput {
    package static let fileNames = ["sweep.json", "sweep.csv", "sweep.md", "index.html"]

    package static func files(_ s: SweepPlacesSummary) -> [(name: String, bytes: [UInt8])] {
        [
            ("sweep.json", Array((json(s).serialized() + "\n").utf8)), ("sweep.csv", Array(csv(s).utf8)),
            ("sweep.md", Array(markdown(s).utf8)), ("index.html", Array(html(s).utf8)),
        ]
    }

    static func estimate(_ e: Estimate?) -> JSONValue {
        guard let e else { return .null }
        return .object([
            ("mean", .number(e.mean)), ("ci95", .array([.number(e.lower), .number(e.upper)])), ("n", .integer(e.n)),
        ])
    }

    static func names(_ s: SweepPlacesSummary, _ ids: [Int]) -> [String] { ids.map { s.placeNames[$0] } }

    static func point(_ s: SweepPlacesSummary, _ p: SweepPlacePointSummary) -> JSONValue {
        .object([
            ("id", .integer(p.id)), ("label", .string(p.point.label)), ("rule", .string(p.point.rule.setupDescription)),
            ("monitoring", .string(p.point.monitoring.description)),
            ("budget", p.point.budget.map { .integer($0) } ?? .null),
            ("refresh_m", p.point.refresh_m.map { .number($0) } ?? .null), ("recall", estimate(p.recall)),
            ("unwantedPerHour", estimate(p.unwantedPerHour)), ("missedPerHour", estimate(p.missedPerHour)),
            ("attributionErrorsPerHour", estimate(p.attributionPerHour)),
            ("orderingErrorsPerHour", estimate(p.orderingPerHour)),
            ("oscillationsPerHour", estimate(p.oscillationsPerHour)), ("swapsPerHour", estimate(p.swapsPerHour)),
            ("notMonitoredShare", p.notMonitoredShare.map { .number($0) } ?? .null),
            ("worstRecall", p.worstRecall.map { .number($0) } ?? .null),
            ("worstPlace", p.worstPlace.map { .string(s.placeNames[$0]) } ?? .null), ("meets", .bool(p.meets)),
            ("bindingPlaces", .array(names(s, p.binding).map { .string($0) })),
        ])
    }

    static func json(_ s: SweepPlacesSummary) -> JSONValue {
        var top: [(String, JSONValue)] = [
            ("format", .string("fencelab-sweep-places/1")), ("toolVersion", .string(ToolVersion.string)),
            ("scenario", .string(s.scenario)), ("places", .integer(s.placeNames.count)),
            ("replicates", .integer(s.replicates)),
            (
                "constraints",
                .object([
                    ("minRecall", .number(s.minRecall)), ("placeConstraint", .string(s.constraint.rawValue)),
                    ("maxUnwanted", s.maxUnwanted.map { .number($0) } ?? .null),
                    ("unwantedBound", s.unwantedBound.map { .number($0) } ?? .null),
                ])
            ),
            ("recommended", s.recommended.map { .integer($0) } ?? .null),
            ("frontier", .array(s.frontier.map { .integer($0) })),
        ]
        if let r = s.recommended {
            let p = s.points[r]
            top.append(
                (
                    "recommendedPlaces",
                    .array(
                        p.places.enumerated().map { i, t in
                            .object([
                                ("place", .string(s.placeNames[i])), ("trueVisits", .integer(t.trueVisits)),
                                ("matchedVisits", .integer(t.matchedVisits)),
                                ("recall", t.recall.map { .number($0) } ?? .null), ("unwanted", .integer(t.unwanted)),
                                ("attributionErrors", .integer(t.attributionErrors)),
                                ("orderingErrors", .integer(t.orderingErrors)),
                                ("notMonitored", .integer(t.notMonitored)),
                            ])
                        })
                ))
        }
        top.append(("points", .array(s.points.map { point(s, $0) })))
        return .object(top)
    }

    static func csvField(_ t: String) -> String {
        t.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
            ? "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : t
    }

    static func num(_ x: Double?) -> String { x.map { $0.isFinite ? "\($0)" : "" } ?? "" }

    static func csv(_ s: SweepPlacesSummary) -> String {
        var out =
            "id,label,monitoring,budget,refresh_m,recall,unwanted_per_hour,missed_per_hour,attribution_per_hour,"
            + "ordering_per_hour,oscillations_per_hour,swaps_per_hour,not_monitored_share,worst_recall,worst_place,"
            + "meets,binding_places\n"
        for p in s.points {
            let fields: [String] = [
                String(p.id), csvField(p.point.label), p.point.monitoring.description,
                p.point.budget.map(String.init) ?? "", num(p.point.refresh_m), num(p.recall?.mean),
                num(p.unwantedPerHour.mean), num(p.missedPerHour.mean), num(p.attributionPerHour.mean),
                num(p.orderingPerHour.mean), num(p.oscillationsPerHour.mean), num(p.swapsPerHour.mean),
                num(p.notMonitoredShare), num(p.worstRecall), p.worstPlace.map { csvField(s.placeNames[$0]) } ?? "",
                p.meets ? "1" : "0", csvField(names(s, p.binding).joined(separator: ";")),
            ]
            out += fields.joined(separator: ",") + "\n"
        }
        return out
    }

    static func f3(_ x: Double?) -> String { x.map { CFormat.fixed($0, decimals: 3) } ?? "–" }

    /// The recommendation and its reasons, one sentence a line (terminal, sweep.md, index.html).
    package static func reasons(_ s: SweepPlacesSummary) -> [String] {
        guard let r = s.recommended else {
            let closest = s.points.filter { ($0.recall?.mean ?? 0) > 0 }.max {
                ($0.worstRecall ?? 0) < ($1.worstRecall ?? 0)
            }
            var lines = ["No setting meets recall ≥ \(s.minRecall) (\(s.constraint.rawValue) place)."]
            if let c = closest {
                lines.append(
                    "Closest: \(c.point.label), worst recall \(f3(c.worstRecall)); binding places: "
                        + names(s, Array(c.binding.prefix(5))).joined(separator: ", ") + ".")
            }
            return lines
        }
        let p = s.points[r]
        var lines = [
            "Recommended for \(s.scenario): \(p.point.label) (rule \(p.point.rule.setupDescription), monitoring \(p.point.monitoring)).",
            "Weighted recall \(f3(p.recall?.mean)) [\(f3(p.recall?.lower)), \(f3(p.recall?.upper))], worst place "
                + "\(p.worstPlace.map { s.placeNames[$0] } ?? "–") at \(f3(p.worstRecall)) (bound \(s.minRecall), \(s.constraint.rawValue)).",
            "Unwanted visits \(f3(p.unwantedPerHour.mean))/h, missed \(f3(p.missedPerHour.mean))/h, attribution errors "
                + "\(f3(p.attributionPerHour.mean))/h, ordering errors \(f3(p.orderingPerHour.mean))/h, oscillations "
                + "\(f3(p.oscillationsPerHour.mean))/h, swaps \(f3(p.swapsPerHour.mean))/h, notMonitored share of misses "
                + "\(f3(p.notMonitoredShare)).",
        ]
        let fewer = s.points.filter { $0.unwantedPerHour.mean < p.unwantedPerHour.mean && !$0.meets }
        if let stop = fewer.min(by: SweepPlacesSummary.better) {
            lines.append(
                "\(fewer.count) settings with fewer unwanted visits fail the constraint; the best of them, "
                    + "\(stop.point.label), is bound by "
                    + names(s, Array(stop.binding.prefix(5))).joined(separator: ", ")
                    + " (worst recall \(f3(stop.worstRecall))).")
        } else {
            lines.append("No setting has fewer unwanted visits per hour.")
        }
        return lines
    }

    package static func terminal(_ s: SweepPlacesSummary) -> String {
        var out = reasons(s).joined(separator: "\n") + "\n"
        out += "frontier (unwanted/h, missed/h, swaps/h): "
        out += s.frontier.prefix(8).map { id in
            let p = s.points[id]
            return
                "\(p.point.label) (\(f3(p.unwantedPerHour.mean)), \(f3(p.missedPerHour.mean)), \(f3(p.swapsPerHour.mean)))"
        }.joined(separator: "; ")
        return out
    }

    static let tableHeader = [
        "id", "setting", "monitoring", "recall", "worst place recall", "unwanted/h", "missed/h", "attribution/h",
        "ordering/h", "oscillations/h", "swaps/h", "notMonitored share", "meets", "binding places",
    ]

    static func row(_ s: SweepPlacesSummary, _ p: SweepPlacePointSummary) -> [String] {
        [
            String(p.id), p.point.rule.label, p.point.monitoring.description, f3(p.recall?.mean), f3(p.worstRecall),
            f3(p.unwantedPerHour.mean), f3(p.missedPerHour.mean), f3(p.attributionPerHour.mean),
            f3(p.orderingPerHour.mean), f3(p.oscillationsPerHour.mean), f3(p.swapsPerHour.mean),
            f3(p.notMonitoredShare), p.meets ? "yes" : "no",
            names(s, Array(p.binding.prefix(5))).joined(separator: ", ") + (p.binding.count > 5 ? " …" : ""),
        ]
    }

    static func markdown(_ s: SweepPlacesSummary) -> String {
        var out = "# Place-set sweep: \(s.scenario)\n\n"
        out += reasons(s).joined(separator: "\n") + "\n\n"
        out += "## Frontier: unwanted and missed visits against swaps per hour\n\n"
        out +=
            "| " + tableHeader.joined(separator: " | ") + " |\n|" + String(repeating: "---|", count: tableHeader.count)
            + "\n"
        for id in s.frontier { out += "| " + row(s, s.points[id]).joined(separator: " | ") + " |\n" }
        out += "\n## Every setting\n\n"
        out +=
            "| " + tableHeader.joined(separator: " | ") + " |\n|" + String(repeating: "---|", count: tableHeader.count)
            + "\n"
        for p in s.points { out += "| " + row(s, p).joined(separator: " | ") + " |\n" }
        return out
    }

    static func table(_ s: SweepPlacesSummary, _ ids: [Int]) -> String {
        let x = ReportText.xml
        var out = "<table><thead><tr>" + tableHeader.map { "<th>\(x($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for id in ids {
            let mark = id == s.recommended ? " class=\"recommended\"" : ""
            out += "<tr\(mark)>" + row(s, s.points[id]).map { "<td>\(x($0))</td>" }.joined() + "</tr>\n"
        }
        return out + "</tbody></table>\n"
    }

    static func html(_ s: SweepPlacesSummary) -> String {
        let x = ReportText.xml
        let lines = reasons(s)
        var out = HTMLPage.open(
            title: "Place-set sweep: \(s.scenario)",
            banner: HTMLPage.Banner(
                cssClass: s.recommended == nil ? "fail" : "pass", heading: lines[0], lines: lines.dropFirst().map(x)),
            pageCSS: "tr.recommended td { font-weight: bold; }")
        out += "<h2>Frontier: unwanted and missed visits against swaps per hour</h2>\n"
        out += "<p>Settings no other setting beats in unwanted visits, missed visits and swaps per hour at once, "
        out += "by swaps per hour (the refresh's battery cost). Bold: the recommendation.</p>\n"
        out += table(s, s.frontier)
        out += "<h2>Every setting</h2>\n" + table(s, s.points.map(\.id))
        out += HTMLPage.close(toolVersion: ToolVersion.string, note: "Place names only; no coordinates.")
        return out
    }
}
