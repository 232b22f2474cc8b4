import DeviceLogKit
import ReportKit
import _FenceLabSupport

/// `report.json` (contract): fixed key order, shortest round-trip doubles, no locale.
///
/// Between two runs with identical inputs only `run.time` and the `throughput`
/// figures differ (and `run.gitCommit` when the checkout changed); everything else is
/// byte-identical. Plot arrays are not written here (they live in index.html).
package enum JSONReport {
    /// Version of the report layout, written as `schema`.
    package static let schema = "fencelab-report/1"

    /// The document as a value.
    package static func document(_ report: RunReport) -> JSONValue {
        .object([
            ("schema", .string(schema)),
            ("run", run(report.run)),
            ("scenarios", .array(report.scenarios.map { scenario($0, includeCoordinates: report.includeCoordinates) })),
            ("acceptance", acceptance(report.acceptance)),
        ])
    }

    /// The file's bytes (UTF-8, trailing newline).
    package static func render(_ report: RunReport) -> String { document(report).serialized() + "\n" }

    static func run(_ r: RunInfo) -> JSONValue {
        .object([
            ("toolVersion", .string(r.toolVersion)),
            ("gitCommit", r.gitCommit.map(JSONValue.string) ?? .null),
            ("swiftToolchain", .string(r.swiftToolchain)),
            ("gslVersion", .string(r.gslVersion)),
            ("generator", .string(r.generator)),
            ("seeds", .array(r.seeds.map { .integer(Int(truncatingIfNeeded: $0)) })),
            ("rulesVersions", .array(r.rulesVersions.map(JSONValue.string))),
            ("time", .string(r.time_utc)),
            (
                "inputFiles",
                .array(
                    r.inputFiles.map { f in
                        .object([("kind", .string(f.kind)), ("path", .string(f.path)), ("sha256", .string(f.sha256))])
                    })
            ),
        ])
    }

    /// `{"mean": x, "ci95": [lo, hi], "n": k}`: the text `estimateObject(e)` serializes to, made
    /// at once (a sweep.json holds tens of estimates per grid point; as a tree each is six nodes).
    package static func estimate(_ e: Estimate) -> JSONValue {
        .oneLine(
            String(unsafeUninitializedCapacity: estimateCapacity_bytes) { buffer in
                var at = 0
                writeEstimate(e, into: buffer, at: &at)
                return at
            })
    }

    /// Room `writeEstimate` needs: at most 9 + 24 + 11 + 24 + 2 + 24 + 8 + 20 + 1 = 123 bytes.
    package static let estimateCapacity_bytes = 128

    /// Writes `estimate(e)`'s text into `buffer` (≥ `estimateCapacity_bytes` from `at`) and moves
    /// `at` past it.
    package static func writeEstimate(_ e: Estimate, into buffer: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        func put(_ text: StaticString) {
            for i in 0..<text.utf8CodeUnitCount {
                buffer[at] = text.utf8Start[i]
                at += 1
            }
        }
        func number(_ x: Double) {
            if x.isFinite { DecimalDigits.write(x, into: buffer, at: &at) } else { put("null") }
        }
        put("{\"mean\": ")
        number(e.mean)
        put(", \"ci95\": [")
        number(e.lower)
        put(", ")
        number(e.upper)
        put("], \"n\": ")
        DecimalDigits.write(e.n, into: buffer, at: &at)
        put("}")
    }

    /// The estimate as a JSON object node (what `estimate` writes).
    package static func estimateObject(_ e: Estimate) -> JSONValue {
        .object([
            ("mean", .number(e.mean)), ("ci95", .array([.number(e.lower), .number(e.upper)])), ("n", .integer(e.n)),
        ])
    }

    /// The metric groups every scenario carries, in order; absent groups are `{}`. The `notify`
    /// group is written, after `visits`, only when measured (a notification policy and a place).
    package static let metricGroups = [
        "flutter", "visits", "cost", "rejections", "faults", "kalman", "gapFill", "throughput",
    ]

    static func scenario(_ s: ScenarioReport, includeCoordinates: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("name", .string(s.name)),
            ("rulesVersion", .string(s.rulesVersion)),
            ("seed", .integer(Int(truncatingIfNeeded: s.seed))),
            ("replicates", .integer(s.replicates)),
            ("passed", .bool(s.passed)),
            ("warnings", .array(s.warnings.map(JSONValue.string))),
        ]
        let tree = metricTree(s.metrics.estimates)
        for group in metricGroups {
            var value = tree.first { $0.0 == group }?.1 ?? .object([])
            // `visits.recall` is null (not absent) when the place has no true visit in any replicate.
            if group == "visits", case .object(var v) = value, !v.isEmpty, !v.contains(where: { $0.0 == "recall" }) {
                v.insert(("recall", .null), at: (v.firstIndex { $0.0 == "missedVisits" } ?? v.count - 1) + 1)
                value = .object(v)
            }
            pairs.append((group, value))
            // `notify` follows `visits` only when the scenario has a notification policy and a place.
            if group == "visits", let notify = tree.first(where: { $0.0 == "notify" }) { pairs.append(notify) }
            // `places` follows only when the scenario has a place set.
            if group == "visits", let places = tree.first(where: { $0.0 == "places" }) {
                pairs.append(("places", placesGroup(places.1, names: s.placeNames)))
            }
        }
        pairs.append(("expectations", .array(s.expectations.map(expectation))))
        if let fence = s.plots?.fence {
            var f: [(String, JSONValue)] = [("enter_m", .number(fence.enter_m)), ("exit_m", .number(fence.exit_m))]
            if includeCoordinates, let lat = fence.centerLatitude, let lon = fence.centerLongitude {
                f.append(("center", .array([.number(lat), .number(lon)])))
            }
            pairs.append(("fence", .object(f)))
        }
        return .object(pairs)
    }

    /// The `places` group with `byPlace` as an array in place order, each entry led by the
    /// place's `name` (its index in the set is its position).
    static func placesGroup(_ value: JSONValue, names: [String]) -> JSONValue {
        guard case .object(var members) = value, let at = members.firstIndex(where: { $0.0 == "byPlace" }),
            case .object(let byIndex) = members[at].1
        else { return value }
        let sorted = byIndex.compactMap { k, v in Int(k).map { ($0, v) } }.sorted { $0.0 < $1.0 }
        members[at].1 = .array(
            sorted.map { i, v in
                guard case .object(let fields) = v else { return v }
                return .object([("name", .string(i < names.count ? names[i] : "\(i)"))] + fields)
            })
        return .object(members)
    }

    /// Nests flat metric paths into objects in catalogue order (`MetricCatalog`).
    static func metricTree(_ estimates: [String: Estimate]) -> [(String, JSONValue)] {
        func build(_ entries: [([String], Estimate)], parent: [String]) -> [(String, JSONValue)] {
            var children: [String: [([String], Estimate)]] = [:]
            var leaves: [String: Estimate] = [:]
            for (rest, e) in entries {
                if rest.count == 1 {
                    leaves[rest[0]] = e
                } else {
                    children[rest[0], default: []].append((Array(rest.dropFirst()), e))
                }
            }
            let names = MetricCatalog.ordered(
                Array(Set(children.keys).union(leaves.keys)), depth: parent.count, parent: parent)
            return names.map { name in
                if let leaf = leaves[name] { return (name, estimate(leaf)) }
                return (name, .object(build(children[name] ?? [], parent: parent + [name])))
            }
        }
        let entries = estimates.map { (path, e) in (path.split(separator: ".").map(String.init), e) }
        return build(entries, parent: [])
    }

    static func expectation(_ r: ExpectationResult) -> JSONValue {
        .object([
            ("path", .string(r.bound.path)),
            ("min", r.bound.min.map(JSONValue.number) ?? .null),
            ("max", r.bound.max.map(JSONValue.number) ?? .null),
            ("measured", r.measured.map(estimate) ?? .null),
            ("passed", .bool(r.passed)),
        ])
    }

    static func acceptance(_ a: Acceptance) -> JSONValue {
        var rules: [(String, JSONValue)] = [
            ("status", .string(a.rules.status.rawValue)),
            ("checks", .integer(a.rules.checks)),
            (
                "failures",
                .array(
                    a.rules.failures.map { f in
                        .object([
                            ("scenario", .string(f.scenario)),
                            ("path", .string(f.result.bound.path)),
                            ("measured", f.result.measured.map { .number($0.mean) } ?? .null),
                            ("min", f.result.bound.min.map(JSONValue.number) ?? .null),
                            ("max", f.result.bound.max.map(JSONValue.number) ?? .null),
                            ("message", .string(f.result.message)),
                        ])
                    })
            ),
            ("fixtureChecks", .integer(a.rules.fixtureChecks)),
            (
                "fixtureFailures",
                .array(
                    a.rules.fixtureFailures.map { f in
                        .object([
                            ("file", .string(f.file)),
                            ("keyPath", .string(f.keyPath)),
                            ("rulesVersion", .string(f.rulesVersion)),
                            ("assertion", .string(f.assertion)),
                            ("actual", .string(f.actual)),
                            ("values", .object(f.values.map { ($0.name, .number($0.value)) })),
                        ])
                    })
            ),
            (
                "fixtureFiles",
                .array(
                    a.rules.fixtureFiles.map { f in
                        .object([
                            ("file", .string(f.file)), ("name", .string(f.name)),
                            ("rulesVersion", .string(f.rulesVersion)),
                            ("rule", f.rule.map(JSONValue.string) ?? .null),
                        ])
                    })
            ),
        ]
        if let note = a.rules.note { rules.append(("note", .string(note))) }
        return .object([
            ("rules", .object(rules)),
            (
                "device",
                .object([
                    ("status", .string(a.device.status.rawValue)),
                    ("logs", .array(a.device.logs.map(JSONValue.string))),
                    ("note", .string(a.device.note)),
                    ("replays", .array(a.device.replays.map(replay))),
                ])
            ),
        ])
    }

    /// One replayed device log: counts, verdict, criteria, every divergence (no coordinates).
    /// A replay's `places` object (`--places`): the aggregates and every place with an event or a divergence.
    static func placesJSON(_ p: PlaceReplaySummary) -> JSONValue {
        func classCounts(_ counts: [Int]) -> JSONValue {
            .object(zip(DivergenceClass.allCases, counts).map { ($0.rawValue, JSONValue.integer($1)) })
        }
        var total = Array(repeating: 0, count: DivergenceClass.allCases.count)
        for place in p.perPlace { for i in total.indices { total[i] += place.counts[i] } }
        return .object([
            ("file", .string(p.file)),
            ("places", .integer(p.placeCount)),
            ("monitoring", .string(p.monitoring)),
            ("swaps", .integer(p.swaps)),
            ("placesWithEvents", .integer(p.perPlace.reduce(0) { $0 + ($1.events > 0 ? 1 : 0) })),
            ("placesFailing", .integer(p.placesFailing)),
            ("counts", classCounts(total)),
            (
                "perPlace",
                .array(
                    p.perPlace.map { place in
                        .object([
                            ("name", .string(place.name)),
                            ("events", .integer(place.events)),
                            ("matched", .integer(place.matched)),
                            ("failing", .integer(place.failing)),
                            ("counts", classCounts(place.counts)),
                        ])
                    })
            ),
        ])
    }

    static func replay(_ r: DeviceReplayResult) -> JSONValue {
        let counts = r.divergences.counts
        func optional(_ v: Int?) -> JSONValue { v.map(JSONValue.integer) ?? .null }
        var fields: [(String, JSONValue)] = [
            ("file", .string(r.file)),
            ("status", .string(r.status.rawValue)),
            ("criteria", .string(r.criteria)),
            ("rule", .string(r.rule)),
            ("rulesVersion", .string(r.rulesVersion)),
            ("maxAge_s", .number(r.maxAge_s)),
            ("fixes", .integer(r.fixCount)),
            ("accepted", .integer(r.accepted)),
            ("rejections", .object(r.rejections.map { ($0.reason, .integer($0.count)) })),
            ("events", .integer(r.eventCount)),
            ("matched", .integer(r.divergences.matched.count)),
            ("counts", .object(DivergenceClass.allCases.map { ($0.rawValue, .integer(counts[$0] ?? 0)) })),
            (
                "divergences",
                .array(
                    r.divergences.divergences.map { d in
                        .object([
                            ("class", .string(d.kind.rawValue)),
                            (
                                "offset_s",
                                d.timestamp_s.isFinite && r.origin_s.isFinite
                                    ? .number(d.timestamp_s - r.origin_s) : .null
                            ),
                            ("line", optional(r.line(of: d))),
                            ("fixIndex", optional(d.decisionIndex)),
                            ("eventIndex", optional(d.eventIndex)),
                            ("delay_s", d.delay_s.map(JSONValue.number) ?? .null),
                            ("failing", .bool(r.divergences.settings.failingClasses.contains(d.kind))),
                            ("detail", .string(d.detail)),
                        ])
                    })
            ),
            ("notCovered", .array(r.notCovered.map(JSONValue.string))),
        ]
        if !r.ingest.isEmpty { fields.append(("ingest", r.ingest.json)) }
        if let places = r.places { fields.append(("places", placesJSON(places))) }
        return .object(fields)
    }
}
