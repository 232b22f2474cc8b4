import GeoPolicy
import _FenceLabSupport

/// Why a sweep grid is refused (before any work starts).
package enum SweepGridError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformedRange(option: String, text: String)
    case nonPositiveStep(option: String, step: Double)
    case emptyRange(option: String, text: String)
    case malformedList(option: String, text: String)
    /// A number that parses but is NaN or ±∞: a bad value (exit 2), not a usage error.
    case nonFinite(option: String, text: String)
    case invalidValue(option: String, value: Double, reason: String)
    case noValidPoint(reason: String)
    case tooManyPoints(count: Int, limit: Int)
    case tooManyValues(option: String, text: String, limit: Int)
    /// What the grid (`what`: "the grid has N points", "--enter: 'A:B:STEP' has N values")
    /// would need, `needed_bytes` (`perItem_bytes` each), is more than the memory `budget` leaves.
    case notEnoughMemory(what: String, needed_bytes: Double, perItem_bytes: Int, item: String, budget: MemoryBudget)
    case malformedShard(text: String)
    /// A `--sampling` entry that is not a sampling policy (`SamplingPolicyError` names the part).
    case sampling(option: String, SamplingPolicyError)
    /// A `--notify` entry that is not a notification policy.
    case notify(option: String, NotificationPolicyError)

    /// True for text that does not parse (a usage error, exit 64) rather than a value out of range.
    package var isMalformed: Bool {
        switch self {
        case .malformedRange, .malformedList, .malformedShard: return true
        case .sampling(_, let e):
            switch e {
            case .unknownPolicy, .malformed: return true
            case .invalidParameter, .invalidParameterIn, .inconsistent, .inconsistentIn, .impossibleComposition:
                return false
            }
        case .notify(_, let e):
            switch e {
            case .unknownPart, .malformed: return true
            case .invalidParameter: return false
            }
        default: return false
        }
    }

    /// One line: option text is echoed at most 80 characters, control characters escaped.
    package var description: String {
        func c(_ t: String) -> String { ShownText.shown(t) }
        switch self {
        case .malformedRange(let o, let t): return "\(o): expected A:B:STEP (e.g. 60:100:10), got '\(c(t))'"
        case .nonPositiveStep(let o, let s): return "\(o): STEP must be > 0, got \(s)"
        case .emptyRange(let o, let t): return "\(o): empty range '\(c(t))' (A must be ≤ B)"
        case .malformedList(let o, let t): return "\(o): expected a comma-separated list of numbers, got '\(c(t))'"
        case .nonFinite(let o, let t): return "\(o): every number must be finite, got '\(c(t))'"
        case .invalidValue(let o, let v, let r): return "\(o): \(v) \(r)"
        case .noValidPoint(let r): return "the grid has no valid point: \(r)"
        case .tooManyValues(let o, let t, let l):
            return "\(o): '\(c(t))' has more than \(l) values; use a larger STEP or pass --force"
        case .tooManyPoints(let c, let l):
            return "the grid has \(c) points, more than the limit \(l); narrow it or pass --force"
        case .notEnoughMemory(let what, let needed, let each, let item, let budget):
            return
                "\(what): the sweep would need about \(Self.bytes(needed)) of memory (≈ \(each) bytes per \(item)), more than the \(Self.bytes(Double(budget.available_bytes))) that \(budget.boundBy) leaves; narrow it or raise the limit (nothing was written)"
        case .malformedShard(let t): return "--shard: expected K/N with 0 ≤ K < N (e.g. 0/4), got '\(c(t))'"
        case .sampling(let o, let e): return "\(o): \(e)"
        case .notify(let o, let e): return "\(o): \(e)"
        }
    }
}

extension SweepGridError {
    /// Bytes as "412 MB", "3.7 GB", "32.0 TB" (decimal units, one decimal from GB on).
    static func bytes(_ n: Double) -> String {
        guard n.isFinite, n >= 0 else { return "an unknown amount of memory" }
        if n < 1e9 { return "\(Int((n / 1e6).rounded(.up))) MB" }
        if n < 1e12 { return Syscalls.format("%.1f GB", (n / 1e8).rounded(.up) / 10) }
        return Syscalls.format("%.1f TB", (n / 1e11).rounded(.up) / 10)
    }
}

/// Inclusive range A…B in steps of STEP, parsed from `A:B:STEP`.
package struct SweepRange: Sendable, Hashable {
    package var values: [Double]
    /// Most values one range may hold without `--force`.
    package static let maxValues = 1_000_000
    /// Memory a range's values take while the grid is counted and built, bytes per value: the
    /// array, the set of distinct values and its sorted copy (8 bytes each, the set's table ≈ 2×).
    package static let bytesPerValue = 4 * MemoryLayout<Double>.stride

    /// - Parameters:
    ///   - limited: false (`--force`) lifts `maxValues`; a range whose values would not fit in the
    ///     memory left (`budget`, by default `MemoryBudget.current()`) is refused all the same.
    /// - Throws: `SweepGridError` naming `option` for malformed text, STEP ≤ 0, A > B, or a range
    ///   too long.
    package init(
        parsing text: String, option: String, limited: Bool = true,
        budget: @autoclosure () -> MemoryBudget? = MemoryBudget.current()
    ) throws(SweepGridError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let a = Double(parts[0]), let b = Double(parts[1]), let step = Double(parts[2]) else {
            throw .malformedRange(option: option, text: text)
        }
        guard a.isFinite, b.isFinite, step.isFinite else { throw .nonFinite(option: option, text: text) }
        guard step > 0 else { throw .nonPositiveStep(option: option, step: step) }
        guard a <= b else { throw .emptyRange(option: option, text: text) }
        // Counted in Double first: (B − A) / STEP can exceed Int (STEP 1e-17) and Int() would trap.
        let steps = ((b - a) / step + 1e-9).rounded(.down)
        if limited {
            guard steps < Double(Self.maxValues) else {
                throw .tooManyValues(option: option, text: text, limit: Self.maxValues)
            }
        } else if let budget = budget(),
            !((steps + 1) * Double(Self.bytesPerValue) <= Double(budget.available_bytes))
        {
            throw .notEnoughMemory(
                what: "\(option): '\(ShownText.shown(text))' has \(Syscalls.format("%.0f", steps + 1)) values",
                needed_bytes: (steps + 1) * Double(Self.bytesPerValue), perItem_bytes: Self.bytesPerValue,
                item: "value", budget: budget)
        }
        guard let stepCount = Int(exactly: steps), stepCount < Int.max else {
            throw .tooManyValues(option: option, text: text, limit: Self.maxValues)
        }
        let count = stepCount + 1
        // a + i·step, not repeated addition: no drift over long ranges.
        values = (0..<count).map { a + Double($0) * step }
    }

    package init(values: [Double]) { self.values = values }
}

extension SweepGrid {
    /// The grid as the command line gives it: `enter`/`exit` as `A:B:STEP`, `maxAccuracy` and
    /// `confirm` as lists (`25,30,50`; defaults 30 m and 1 fix). `exit` is used for hysteresis only.
    /// Malformed text throws `.malformedRange`/`.malformedList` naming the option (`--enter`, ...).
    /// `kalmanQ` is a list too (default `FenceInput.defaultAccelerationDensity_m2ps3`).
    package init(
        parsing kind: SweepRuleKind, enter: String, exit: String?, maxAccuracy: String?, confirm: String?,
        inputs: [FenceInput.Kind] = [.raw], kalmanQ: String? = nil, sampling: String? = nil,
        confirmSeconds: String? = nil, notify: String? = nil, limit: Int?
    ) throws(SweepGridError) {
        // One reading of the memory left (four /proc and cgroup files) for both ranges and the
        // grid's admission, which reads it in any case.
        let budget = MemoryBudget.current()
        let enterRange = try SweepRange(parsing: enter, option: "--enter", limited: limit != nil, budget: budget)
        let exitRange = try exit.map { text throws(SweepGridError) in
            try SweepRange(parsing: text, option: "--exit", limited: limit != nil, budget: budget)
        }
        let accuracy =
            try maxAccuracy.map { text throws(SweepGridError) in try parseSweepList(text, option: "--max-accuracy") }
            ?? [30]
        var fixes: [Int] = [1]
        if let confirm {
            fixes = []
            for v in try parseSweepList(confirm, option: "--confirm") {
                guard v == v.rounded(), abs(v) < 1e9 else {
                    throw .malformedList(option: "--confirm", text: confirm + " (whole numbers of fixes)")
                }
                fixes.append(Int(v))
            }
        }
        let q =
            try kalmanQ.map { text throws(SweepGridError) in try parseSweepList(text, option: "--kalman-q") }
            ?? [FenceInput.defaultAccelerationDensity_m2ps3]
        let policies = try sampling.map { text throws(SweepGridError) in try parseSamplingList(text) }
        let seconds =
            try confirmSeconds.map { text throws(SweepGridError) in try parseSweepList(text, option: "--confirm-s") }
            ?? [0]
        try self.init(
            kind: kind, enter: enterRange, exit: kind == .hysteresis ? exitRange : nil, maxAccuracy: accuracy,
            confirm: fixes, inputs: inputs, kalmanQ: q, sampling: policies, confirmSeconds: seconds,
            notify: try notify.map { text throws(SweepGridError) in try parseNotifyList(text) }, limit: limit,
            budget: budget)
    }
}

/// Parses `--notify`: comma-separated notification policy specs (`none,dwell:300,dwell:300+cooldown:600`).
package func parseNotifyList(_ text: String, option: String = "--notify") throws(SweepGridError) -> [NotificationPolicy]
{
    var out: [NotificationPolicy] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        do { out.append(try NotificationPolicy.parse(String(part.trimmingCharacters(in: " ")))) } catch {
            throw .notify(option: option, error)
        }
    }
    return out
}

/// Parses `--sampling`: comma-separated sampling policy specs (`all,interval:60,distance:50+batch:300`).
package func parseSamplingList(_ text: String, option: String = "--sampling") throws(SweepGridError) -> [SamplingPolicy]
{
    var out: [SamplingPolicy] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        do { out.append(try SamplingPolicy.parse(String(part.trimmingCharacters(in: " ")))) } catch {
            throw .sampling(option: option, error)
        }
    }
    return out
}

/// Parses `25,30,50` into numbers; the error names the option.
package func parseSweepList(_ text: String, option: String) throws(SweepGridError) -> [Double] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    var values: [Double] = []
    for p in parts {
        guard let v = Double(p.trimmingCharacters(in: " ")) else { throw .malformedList(option: option, text: text) }
        guard v.isFinite else { throw .nonFinite(option: option, text: text) }
        values.append(v)
    }
    guard !values.isEmpty else { throw .malformedList(option: option, text: text) }
    return values
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return s
    }
}

/// Which rule family a sweep varies.
@usableFromInline
package enum SweepRuleKind: String, Sendable, Hashable, CaseIterable, Codable {
    case hysteresis, threshold, conservative
}

/// One point of a sweep grid: a complete rule setting.
package struct SweepPoint: Sendable, Hashable, Comparable, Codable {
    package var kind: SweepRuleKind
    /// Enter radius (hysteresis) or the radius (threshold, conservative), metres.
    package var enter_m: Double
    /// Exit radius, metres (hysteresis only; equals `enter_m` otherwise).
    package var exit_m: Double
    /// Accuracy gate in metres (hysteresis only; +∞ when not applicable).
    package var maxAccuracy_m: Double
    /// Consecutive agreeing fixes required before a change (1 = no confirmation).
    package var confirm_n: Int
    /// Seconds the agreeing fixes must span as well (`--confirm-s`, > 0), nil for none: with
    /// `confirm_n` > 1 both must hold (`Confirmation.fixesAndSeconds`), else `.seconds`.
    package var confirm_s: Double?
    /// What the rule decides on: raw fixes, or the Kalman or IMM filter's causal estimate.
    package var input: FenceInput.Kind = .raw
    /// The filter's process noise q, m²/s³ (`FenceInput.defaultAccelerationDensity_m2ps3` for raw input).
    package var q_m2s3: Double = FenceInput.defaultAccelerationDensity_m2ps3
    // `Optional<String>` rather than `String?`, here and below, so that the property has no
    // implicit `nil` default: with one, `init` assigned over it, and every point built was
    // copied out of a temporary that was then destroyed (two value-witness calls per point read
    // from `SweepPointAxes`, as many points as the grid has for every pass over it).
    // swift-format-ignore: UseShorthandTypeNames
    /// The sampling policy the app is given its fixes by (`SamplingPolicy.description`, canonical),
    /// or nil for each scenario's own `sampling.policy` (a sweep without `--sampling`).
    package var sampling: Optional<String>
    // swift-format-ignore: UseShorthandTypeNames
    /// The notification policy scored with the point (`NotificationPolicy.description`, canonical;
    /// `--notify`), or nil for none scored (a sweep without `--notify`).
    package var notify: Optional<String>

    package init(
        kind: SweepRuleKind, enter_m: Double, exit_m: Double, maxAccuracy_m: Double, confirm_n: Int,
        input: FenceInput.Kind = .raw, q_m2s3: Double = FenceInput.defaultAccelerationDensity_m2ps3,
        sampling: String? = nil, confirm_s: Double? = nil, notify: String? = nil
    ) {
        self.sampling = sampling
        self.notify = notify
        self.confirm_s = confirm_s.flatMap { $0 > 0 ? $0 : nil }
        self.kind = kind
        self.enter_m = enter_m
        self.exit_m = exit_m
        self.maxAccuracy_m = maxAccuracy_m
        self.confirm_n = confirm_n
        self.input = input
        self.q_m2s3 = input == .raw ? FenceInput.defaultAccelerationDensity_m2ps3 : q_m2s3
    }

    /// The input stage of this point (q validated by the grid).
    package var fenceInput: FenceInput {
        (try? FenceInput(input, accelerationDensity_m2ps3: q_m2s3)) ?? .raw
    }

    /// Width of the hysteresis band in metres.
    package var band_m: Double { exit_m - enter_m }

    /// A stable label, e.g. `hysteresis 80/120 acc30 confirm1`, `… confirm1 kalman q0.5` for a
    /// filtered input, `… confirm1 @interval:60` with a sampling policy of the sweep's axis.
    ///
    /// Built as bytes (`fmt`'s text for each number): the outputs ask for a listed point's label
    /// several times, and string interpolation took ≈ 5 700 instructions a label (1.4 % of the
    /// 142-point sweep).
    package var label: String {
        var b: [UInt8] = []
        b.reserveCapacity(64)
        func put(_ text: StaticString) { text.withUTF8Buffer { b.append(contentsOf: $0) } }
        func put(_ text: String) {
            var text = text
            text.withUTF8 { b.append(contentsOf: $0) }
        }
        func number(_ v: Double) { appendFmt(v, to: &b) }
        switch kind {
        case .hysteresis:
            put("hysteresis ")
            number(enter_m)
            put("/")
            number(exit_m)
            put(" acc")
            number(maxAccuracy_m)
        case .threshold, .conservative:
            put(kind.rawValue)
            put(" ")
            number(enter_m)
        }
        put(" confirm")
        DecimalDigits.append(confirm_n, to: &b)
        if let s = confirm_s {
            put("+")
            number(s)
            put("s")
        }
        if input != .raw {
            put(" ")
            put(input.rawValue)
            put(" q")
            number(q_m2s3)
        }
        if let notify {
            put(" notify:")
            put(notify)
        }
        if let sampling {
            put(" @")
            put(sampling)
        }
        return String(decoding: b, as: UTF8.self)
    }

    /// The spec string with the input stage (`hysteresis:80:120:30+confirm2+kalman:0.5`).
    package var setupDescription: String { FenceSetup(rule: rule, input: fenceInput).description }

    /// Appends `setupDescription`'s bytes without building the rule and its strings (≈ 4 700
    /// instructions a point through `RuleSpec.description`), when the point has the raw input
    /// and every number in it is one the rules version writes as an integer (finite, integral,
    /// below 10¹⁵ in magnitude: `Int64`'s digits), as nearly every grid's are. Returns false,
    /// leaving `out` as it was, otherwise. `SweepGridTests` compares the bytes with
    /// `setupDescription`.
    func appendSetupDescription(to out: inout [UInt8]) -> Bool {
        func integral(_ x: Double) -> Bool { x.isFinite && x == x.rounded(.towardZero) && Swift.abs(x) < 1e15 }
        guard input == .raw, integral(enter_m), confirm_s.map(integral) ?? true else { return false }
        if kind == .hysteresis { guard integral(exit_m), integral(maxAccuracy_m) else { return false } }
        func put(_ text: StaticString) { text.withUTF8Buffer { out.append(contentsOf: $0) } }
        func number(_ x: Double) { DecimalDigits.append(Int(x), to: &out) }
        switch kind {
        case .hysteresis:
            put("hysteresis:")
            number(enter_m)
            put(":")
            number(exit_m)
            put(":")
            number(maxAccuracy_m)
        case .threshold:
            put("threshold:")
            number(enter_m)
        case .conservative:
            put("conservative:")
            number(enter_m)
        }
        if confirm_n > 1 {
            put("+confirm")
            DecimalDigits.append(confirm_n, to: &out)
        }
        if let t = confirm_s {
            put("+confirm")
            number(t)
            put("s")
        }
        return true
    }

    /// The engine's rule for this point; confirmation 1 means none (same decisions, plain rules version).
    package var rule: RuleSpec {
        let confirmation: Confirmation?
        switch (confirm_n > 1, confirm_s) {
        case (true, let t?): confirmation = .fixesAndSeconds(fixes: confirm_n, seconds: t)
        case (false, let t?): confirmation = .seconds(t)
        case (true, nil): confirmation = .fixes(confirm_n)
        case (false, nil): confirmation = nil
        }
        switch kind {
        case .hysteresis:
            return .hysteresis(
                enter_m: enter_m, exit_m: exit_m, maxAccuracy_m: maxAccuracy_m, confirmation: confirmation)
        case .threshold: return .threshold(radius_m: enter_m, confirmation: confirmation)
        case .conservative: return .conservative(radius_m: enter_m, confirmation: confirmation)
        }
    }

    /// The seeds' setting (seed 000: hysteresis 80/120 m, accuracy gate 30 m, no confirmation).
    package static let seedReference = SweepPoint(
        kind: .hysteresis, enter_m: 80, exit_m: 120, maxAccuracy_m: 30, confirm_n: 1)

    /// True for the seeds' 80/120/30 on raw fixes at any sampling policy (with any notification
    /// policy of the grid's `--notify`).
    package var isSeedReference: Bool {
        var p = self
        p.sampling = nil
        p.notify = nil
        return p == .seedReference
    }

    /// This point with sampling policy `spec` (nil: the scenario's own).
    package func sampled(_ spec: String?) -> SweepPoint {
        var p = self
        p.sampling = spec
        return p
    }

    /// Order: radii, gate, confirmation, rule kind, then input (raw, kalman, imm) and q — so a
    /// grid of raw points keeps its order and ids when filtered inputs are added after it.
    package static func < (a: SweepPoint, b: SweepPoint) -> Bool {
        if (a.enter_m, a.exit_m, a.maxAccuracy_m, a.confirm_n) != (b.enter_m, b.exit_m, b.maxAccuracy_m, b.confirm_n) {
            return (a.enter_m, a.exit_m, a.maxAccuracy_m, a.confirm_n) < (
                b.enter_m, b.exit_m, b.maxAccuracy_m, b.confirm_n
            )
        }
        if a.confirm_s != b.confirm_s { return (a.confirm_s ?? 0) < (b.confirm_s ?? 0) }
        if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue }
        let ra = FenceInput.Kind.allCases.firstIndex(of: a.input) ?? 0
        let rb = FenceInput.Kind.allCases.firstIndex(of: b.input) ?? 0
        if ra != rb { return ra < rb }
        if a.q_m2s3 != b.q_m2s3 { return a.q_m2s3 < b.q_m2s3 }
        // Total order only: a grid lists its sampling and notification policies in the order given.
        if a.notify != b.notify { return (a.notify ?? "") < (b.notify ?? "") }
        return (a.sampling ?? "") < (b.sampling ?? "")
    }
}

/// A number as labels write it: an integral value without a decimal point, others as Swift prints them.
func fmt(_ v: Double) -> String {
    fmtIsInteger(v) ? String(Int(v)) : "\(v)"
}

/// `fmt(v)`'s bytes appended to `out`.
func appendFmt(_ v: Double, to out: inout [UInt8]) {
    if fmtIsInteger(v) { DecimalDigits.append(Int(v), to: &out) } else { out.append(contentsOf: "\(v)".utf8) }
}

/// Whether `fmt` writes `v` as an integer: integral and below 10¹⁵ in magnitude.
private func fmtIsInteger(_ v: Double) -> Bool { v == v.rounded() && abs(v) < 1e15 }

/// The grid of a sweep: the cartesian product of the options, invalid combinations
/// (exit ≤ enter for hysteresis) left out, the seeds' 80/120/30 always added (for a threshold or
/// conservative sweep it is the one hysteresis point, there for comparison).
package struct SweepGrid: Sendable, Hashable {
    package init(points: [SweepPoint]) { self.init(points: SweepPointList(points)) }

    package init(points: SweepPointList) {
        self.points = points
        referenceIndex = points.referenceIds.first
    }

    /// Computed from the grid's axes when the grid is built from options (nothing per point stored).
    package var points: SweepPointList
    /// Index of the seeds' reference setting (80/120/30, no confirmation; at the first sampling
    /// policy of the grid) in `points`.
    package var referenceIndex: Int?

    /// The grid's sampling policies in point order (`[nil]`: each scenario's own).
    package var samplings: [String?] { points.samplings }

    /// The distinct sampling policies of `points`, in the order they first appear.
    package static func samplings(of points: SweepPointList) -> [String?] { points.samplings }

    /// The distinct sampling policies of `points`, in the order they first appear.
    package static func samplings(of points: [SweepPoint]) -> [String?] {
        var out: [String?] = []
        for p in points where !out.contains(p.sampling) { out.append(p.sampling) }
        return out
    }

    package static let defaultLimit = 2_000
    /// Memory a sweep takes per grid point, bytes, from the sizes of what it keeps per point: the
    /// points themselves are computed from the grid's axes (nothing stored), so it is the mix
    /// figures' eight columns (at most a double each, `SweepColumn`) with their violation offset,
    /// and one scenario's three flutter columns while its frontier is found: 92 bytes. The peak
    /// RSS of `sweep` grows by 70 bytes per point between 97 600 and 976 000 points
    /// (docs/sweeps.md, "Cost").
    package static let bytesPerPoint =
        8 * MemoryLayout<Double>.stride + MemoryLayout<Int32>.stride + 3 * MemoryLayout<Double>.stride

    /// Refuses `count` points above `limit` (nil: `--force`, no limit), or that would not fit in
    /// the memory `budget` leaves (nil: not known, no check).
    package static func admit(count: Int, limit: Int?, budget: MemoryBudget?) throws(SweepGridError) {
        if let limit, count > limit { throw .tooManyPoints(count: count, limit: limit) }
        guard let budget else { return }
        let needed = Double(count) * Double(bytesPerPoint)
        guard needed <= Double(budget.available_bytes) else {
            throw .notEnoughMemory(
                what: "the grid has \(count == .max ? "more than \(Int.max)" : "\(count)") points",
                needed_bytes: needed,
                perItem_bytes: bytesPerPoint, item: "point", budget: budget)
        }
    }

    /// The number of distinct points `init` would build (the seeds' reference included), without
    /// building them: Σ over enter radii of the exit radii above it, × accuracies × confirmations.
    package static func pointCount(
        kind: SweepRuleKind, enter: SweepRange, exit: SweepRange?, maxAccuracy: [Double], confirm: [Int]
    ) -> Int {
        let enters = Set(enter.values)
        let accuracies = Set(maxAccuracy)
        let confirms = Set(confirm)
        let reference = SweepPoint.seedReference
        switch kind {
        case .hysteresis:
            let exits = Set(exit?.values ?? []).sorted()
            var pairs = 0
            for e in enters {
                // Exit radii strictly above e: binary search in the sorted distinct exits.
                var lo = 0
                var hi = exits.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if exits[mid] > e { hi = mid } else { lo = mid + 1 }
                }
                pairs += exits.count - lo
            }
            let (n, overflow) = pairs.multipliedReportingOverflow(by: accuracies.count * confirms.count)
            guard !overflow else { return .max }
            let hasReference =
                enters.contains(reference.enter_m) && exits.contains(reference.exit_m)
                && accuracies.contains(reference.maxAccuracy_m) && confirms.contains(reference.confirm_n)
            return n + (hasReference ? 0 : 1)
        case .threshold, .conservative:
            return enters.count * confirms.count + 1
        }
    }

    /// - Parameters:
    ///   - inputs: the input stages to cross with every rule setting (default raw only).
    ///   - kalmanQ: process noise values q (m²/s³, finite, > 0) for the filtered inputs (default 1).
    ///   - sampling: the sampling policies to cross with every setting, in the order given (nil:
    ///     each scenario's own policy). The points are grouped by policy: the first policy's
    ///     points come first, in the order and with the ids a sweep of that policy alone gives them.
    package init(
        kind: SweepRuleKind, enter: SweepRange, exit: SweepRange?, maxAccuracy: [Double],
        confirm: [Int], inputs: [FenceInput.Kind] = [.raw],
        kalmanQ: [Double] = [FenceInput.defaultAccelerationDensity_m2ps3],
        sampling: [SamplingPolicy]? = nil, confirmSeconds: [Double] = [0], notify: [NotificationPolicy]? = nil,
        limit: Int? = defaultLimit, budget: @autoclosure () -> MemoryBudget? = MemoryBudget.current()
    ) throws(SweepGridError) {
        var notifications: [String] = []
        for n in notify ?? [] where !notifications.contains(n.description) { notifications.append(n.description) }
        for t in confirmSeconds where !(t >= 0 && t.isFinite) {
            throw .invalidValue(
                option: "--confirm-s", value: t, reason: "must be finite and ≥ 0 s (0: no time confirmation)")
        }
        let seconds = Array(Set(confirmSeconds.map { $0 > 0 ? $0 : 0 })).sorted()
        for v in enter.values where v < 0 { throw .invalidValue(option: "--enter", value: v, reason: "must be ≥ 0 m") }
        for v in exit?.values ?? [] where v < 0 {
            throw .invalidValue(option: "--exit", value: v, reason: "must be ≥ 0 m")
        }
        for v in maxAccuracy where !(v > 0 && v.isFinite) {
            throw .invalidValue(
                option: "--max-accuracy", value: v, reason: "must be finite and > 0 m (a gate of 0 m rejects every fix)"
            )
        }
        for c in confirm where c < 1 {
            throw .invalidValue(option: "--confirm", value: Double(c), reason: "must be ≥ 1 fix")
        }
        for q in kalmanQ where !(q > 0 && q.isFinite) {
            throw .invalidValue(option: "--kalman-q", value: q, reason: "must be finite and > 0 m²/s³")
        }
        guard !inputs.isEmpty else { throw .noValidPoint(reason: "--input names no input") }
        // Counted before anything is enumerated (found by fuzz/targets/cli_options.swift: 11 enter
        // × 500 000 exit radii took minutes to build and then refuse): the number of rule settings
        // the set below would hold, from the sorted ranges, times the input stages (a filtered
        // input once per q), so the refusal costs O(n log n).
        let settings = Self.pointCount(kind: kind, enter: enter, exit: exit, maxAccuracy: maxAccuracy, confirm: confirm)
        let distinctInputs = Set(inputs)
        let stageCount =
            (distinctInputs.contains(.raw) ? 1 : 0) + distinctInputs.filter { $0 != .raw }.count * Set(kalmanQ).count
        var policies: [String?] = []
        for p in sampling ?? [] where !policies.contains(p.description) { policies.append(p.description) }
        if policies.isEmpty { policies = [nil] }
        let (staged, overflow) = settings.multipliedReportingOverflow(by: stageCount)
        let (timed, overflow1) = staged.multipliedReportingOverflow(by: max(1, seconds.count))
        let (notified, overflow3) = timed.multipliedReportingOverflow(by: max(1, notifications.count))
        let (sampled, overflow2) = notified.multipliedReportingOverflow(by: policies.count)
        let count = overflow || overflow1 || overflow2 || overflow3 ? .max : sampled
        try Self.admit(count: count, limit: limit, budget: budget())
        switch kind {
        case .hysteresis:
            guard let exit else { throw .noValidPoint(reason: "hysteresis needs --exit") }
            // `settings` counts the seeds' setting once more when it is not in the product.
            let seedAdded =
                Self.hasSeedSetting(
                    kind: kind, enter: enter, exit: exit, maxAccuracy: maxAccuracy, confirm: confirm) ? 0 : 1
            guard settings > seedAdded else {
                throw .noValidPoint(reason: "every exit radius is ≤ its enter radius")
            }
        case .threshold, .conservative: break
        }
        // The points are computed from the sorted axes (`SweepPointAxes`), in the order the set of
        // every product point, sorted, gives them; only the axes are stored.
        let axes = SweepPointAxes(
            kind: kind, enter: enter.values, exit: exit?.values ?? [], maxAccuracy: maxAccuracy, confirm: confirm,
            inputs: inputs, kalmanQ: kalmanQ, confirmSeconds: confirmSeconds, notify: notifications,
            sampling: policies)
        if let limit, axes.count > limit { throw .tooManyPoints(count: axes.count, limit: limit) }
        // Every distinct rule must be valid: the input stage (the fastest axis of the product) and
        // the policies do not change the rule, and the seeds' setting is valid. A rule is valid when
        // its rule part and its confirmation are, so each part is checked once from the axes; only
        // when one fails is the product walked, to name the first invalid setting.
        let stride = max(1, axes.stages.count)
        for i in Swift.stride(from: 0, to: Self.partsValid(axes) ? 0 : axes.productCount, by: stride) {
            let p = axes.setting(i)
            do { _ = try p.rule.evaluator() } catch {
                throw .invalidValue(
                    option: p.kind == .hysteresis ? "--enter/--exit" : "--enter", value: p.enter_m,
                    reason: "gives an invalid rule \(p.label): \(error)")
            }
        }
        points = SweepPointList(axes: axes)
        referenceIndex = axes.referenceIds.first
    }

    /// True when every rule part (enter, exit and gate, without confirmation) and every
    /// confirmation (fixes × seconds) of the axes is valid, so that every setting's
    /// `RuleSpec.evaluator()` is: it validates the rule part and then the confirmation, and
    /// nothing that depends on both. 24 400 checks instead of 97 600 settings on a 97 600-point
    /// grid with 4 confirmations, without an evaluator each.
    static func partsValid(_ axes: SweepPointAxes) -> Bool {
        let stage =
            axes.stages.first ?? SweepPointAxes.Stage(input: .raw, q_m2s3: FenceInput.defaultAccelerationDensity_m2ps3)
        func point(_ kind: SweepRuleKind, _ e: Double, _ x: Double, _ a: Double, _ c: Int, _ s: Double?) -> SweepPoint {
            SweepPoint(
                kind: kind, enter_m: e, exit_m: x, maxAccuracy_m: a, confirm_n: c, input: stage.input,
                q_m2s3: stage.q_m2s3, confirm_s: s)
        }
        let seed = SweepPoint.seedReference
        for c in axes.confirms {
            for s in axes.seconds {
                let p = point(.hysteresis, seed.enter_m, seed.exit_m, seed.maxAccuracy_m, c, s)
                guard (try? p.rule.evaluator()) != nil else { return false }
            }
        }
        for (e, enter) in axes.enters.enumerated() {
            switch axes.kind {
            case .hysteresis:
                for exit in axes.exits[axes.firstExit[e]...] {
                    for a in axes.accuracies {
                        guard (try? point(.hysteresis, enter, exit, a, 1, nil).rule.rule()) != nil else { return false }
                    }
                }
            case .threshold, .conservative:
                guard (try? point(axes.kind, enter, enter, .infinity, 1, nil).rule.rule()) != nil else { return false }
            }
        }
        return true
    }

    /// True when the seeds' 80/120/30 is one of the hysteresis product's settings (before stages).
    static func hasSeedSetting(
        kind: SweepRuleKind, enter: SweepRange, exit: SweepRange?, maxAccuracy: [Double], confirm: [Int]
    ) -> Bool {
        let r = SweepPoint.seedReference
        return kind == .hysteresis && enter.values.contains(r.enter_m) && (exit?.values.contains(r.exit_m) ?? false)
            && maxAccuracy.contains(r.maxAccuracy_m) && confirm.contains(r.confirm_n)
    }
}

/// `--shard K/N`: this process runs the work items whose index ≡ K (mod N).
package struct Shard: Sendable, Hashable, CustomStringConvertible {
    package var index: Int
    package var count: Int

    package static let whole = Shard(index: 0, count: 1)

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N` with 0 ≤ K < N.
    package init(parsing text: String) throws(SweepGridError) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else {
            throw .malformedShard(text: text)
        }
        index = k
        count = n
    }

    package func owns(_ item: Int) -> Bool { item % count == index }
    package var description: String { "\(index)/\(count)" }
}
