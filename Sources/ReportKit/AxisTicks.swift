import Foundation

/// The ticks of one plot axis, chosen by the one algorithm every plot uses.
///
/// A numeric axis steps by 1, 2 or 5 × 10ᵏ (2.5 × 10ᵏ too where a quarter step is wanted); its
/// ticks are the multiples of the step from the last one at or below the data to the first one at
/// or above it, so they cover the data and include 0 when the data span it. A time axis steps by a
/// time-natural step (1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; then days)
/// and keeps its ticks inside the data. Every label prints its tick's exact value (`label(_:)`).
package struct AxisTicks: Equatable, Sendable {
    /// How labels read: plain numbers, or durations (`45 s`, `20 min`, `1 h 30 min`).
    package enum Kind: Equatable, Sendable { case number, time }

    /// The distance between neighbouring ticks, in the axis's unit; > 0.
    package let step: Double
    /// The tick values, ascending; multiples of `step` (k × step for whole k).
    package let values: [Double]
    package let kind: Kind

    /// The first and the last tick: the axis domain of a covering axis.
    package var lower: Double { values.first ?? 0 }
    package var upper: Double { values.last ?? 1 }
    package var domain: (Double, Double) { (lower, upper) }

    /// Mantissas of a number step (the quarter step adds 2.5).
    static let mantissas = [1.0, 2, 5]
    static let quarterMantissas = [1.0, 2, 2.5, 5]

    /// Time-natural steps, seconds, from one second to half a day; longer steps are whole days.
    static let timeSteps_s: [Double] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
    ]

    /// Seconds in a minute, an hour and a day.
    enum Seconds {
        static let minute = 60.0, hour = 3600.0, day = 86400.0
    }

    /// The ticks covering [min(a, b), max(a, b)] with at most about `intervals` steps between them.
    /// Non-finite data give the axis 0…1; a zero-width range is widened to reach 0 (or to 0…1 at 0).
    package static func covering(_ a: Double, _ b: Double, intervals: Int = 5, quarter: Bool = false) -> AxisTicks {
        guard a.isFinite, b.isFinite else { return covering(0, 1, intervals: intervals, quarter: quarter) }
        var lo = min(a, b)
        var hi = max(a, b)
        if lo == hi {
            if lo == 0 { hi = 1 } else { (lo, hi) = (min(0, lo), max(0, hi)) }
        }
        let (m, e) = niceStepParts(atLeast: (hi - lo) / Double(max(1, intervals)), quarter: quarter)
        let step = decimal(m, e)
        let first = snapped(lo / step).rounded(.down)
        let last = snapped(hi / step).rounded(.up)
        return AxisTicks(step: step, values: multiples(from: first, to: last, mantissa: m, exponent: e), kind: .number)
    }

    /// Time ticks on multiples of a time-natural step inside [t0, t1] (seconds), about `intervals`
    /// steps across; none for an empty or non-finite range.
    package static func time(inside t0: Double, _ t1: Double, intervals: Int) -> AxisTicks {
        guard t0.isFinite, t1.isFinite, t1 > t0 else { return AxisTicks(step: 1, values: [], kind: .time) }
        let minimum_s = (t1 - t0) / Double(max(1, intervals))
        // Below a second a number step (0.1, 0.2, 0.5 s), else a whole number of seconds.
        let (m, e) = minimum_s < 1 ? niceStepParts(atLeast: minimum_s) : (timeStep(atLeast: minimum_s), 0)
        let step = decimal(m, e)
        let first = snapped(t0 / step).rounded(.up)
        let last = snapped(t1 / step).rounded(.down)
        return AxisTicks(step: step, values: multiples(from: first, to: last, mantissa: m, exponent: e), kind: .time)
    }

    /// `q` held to the nearest whole number when it is one but for rounding (0.3 / 0.1 is 2.9999999999999996).
    static func snapped(_ q: Double) -> Double {
        abs(q - q.rounded()) <= max(1e-9, 8 * q.ulp) ? q.rounded() : q
    }

    /// m × 10ᵉ as the double nearest the decimal (0.1 is 1 / 10, not 1 × 0.1^1).
    static func decimal(_ m: Double, _ e: Int) -> Double { e < 0 ? m / pow(10, Double(-e)) : m * pow(10, Double(e)) }

    /// k × m × 10ᵉ for whole k from `first` to `last`, each the double nearest its decimal value
    /// (3 × 0.1 is 0.3, not 0.30000000000000004, so a tick at the data's end covers it); -0 is 0.
    static func multiples(from first: Double, to last: Double, mantissa m: Double, exponent e: Int) -> [Double] {
        guard last >= first else { return [] }
        // Bounded: a step is at least the range over the intervals asked for.
        let count = min(Int(last - first) + 1, 1000)
        return (0..<count).map { k in
            let v = decimal((first + Double(k)) * m, e)
            return v == 0 ? 0 : v
        }
    }

    /// The smallest 1, 2, 5 (and 2.5 with `quarter`) × 10ᵏ at or above `minimum`.
    package static func niceStep(atLeast minimum: Double, quarter: Bool = false) -> Double {
        let (m, e) = niceStepParts(atLeast: minimum, quarter: quarter)
        return decimal(m, e)
    }

    /// `niceStep` as its mantissa (1, 2, 2.5 or 5) and power of ten.
    static func niceStepParts(atLeast minimum: Double, quarter: Bool = false) -> (Double, Int) {
        guard minimum > 0, minimum.isFinite else { return (1, 0) }
        let e = Int(log10(minimum).rounded(.down))
        let p = decimal(1, e)
        for m in (quarter ? quarterMantissas : mantissas) where m * p >= minimum * (1 - 1e-12) { return (m, e) }
        return (1, e + 1)
    }

    /// The smallest time-natural step at or above `minimum_s`: below a second a number step, then
    /// `timeSteps_s`, then whole days on a 1/2/5 ladder.
    package static func timeStep(atLeast minimum_s: Double) -> Double {
        guard minimum_s > 0, minimum_s.isFinite else { return 1 }
        if minimum_s < 1 { return niceStep(atLeast: minimum_s) }
        if let s = timeSteps_s.first(where: { $0 >= minimum_s }) { return s }
        return Seconds.day * niceStep(atLeast: minimum_s / Seconds.day)
    }

    /// Decimals that print every multiple of `step` exactly (0 for a whole step).
    var decimals: Int {
        var d = 0
        while d < 12 {
            let scaled = step * pow(10, Double(d))
            if abs(scaled - scaled.rounded()) <= 1e-9 * max(1, scaled) { return d }
            d += 1
        }
        return d
    }

    /// The text of tick `v`: its exact value (`18.75`, never `18.8`), in plain notation from 10⁻⁴
    /// to 10⁹ and as `2.5e12` beyond; durations as `30 s`, `20 min`, `1 h`, `1 h 30 min`, `2 d`.
    package func label(_ v: Double) -> String {
        switch kind {
        case .time: return Self.timeLabel(v, step: step)
        case .number: return numberLabel(v)
        }
    }

    func numberLabel(_ v: Double) -> String {
        if v == 0 { return "0" }
        let exponent = Int((log10(step)).rounded(.down))
        guard exponent >= -4, exponent < 9 else {
            // Scientific: the mantissa's exact decimals over the step's power of ten.
            let scale = pow(10, Double(exponent))
            let mantissa = CFormat.fixed(v / scale, decimals: step / scale == 2.5 ? 1 : 0)
            return "\(Self.trimmed(mantissa))e\(exponent)"
        }
        return Self.trimmed(CFormat.fixed(v, decimals: decimals))
    }

    /// Trailing zeros after the point dropped ("2.50" → "2.5", "3.0" → "3").
    static func trimmed(_ s: String) -> String {
        guard s.contains(".") else { return s }
        var t = s
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t == "-0" ? "0" : t
    }

    /// A duration tick: seconds below a minute's step, else days, hours and minutes.
    static func timeLabel(_ v: Double, step: Double) -> String {
        if v == 0 { return "0" }
        guard step >= Seconds.minute, abs(v) < 1e15 else {
            return trimmed(CFormat.fixed(v, decimals: AxisTicks(step: step, values: [], kind: .time).decimals)) + " s"
        }
        let sign = v < 0 ? "-" : ""
        var rest = Int(abs(v).rounded())
        var parts: [String] = []
        for (size, unit) in [(Int(Seconds.day), "d"), (Int(Seconds.hour), "h"), (Int(Seconds.minute), "min")] {
            if rest >= size {
                parts.append("\(rest / size) \(unit)")
                rest %= size
            }
        }
        return sign + parts.joined(separator: " ")
    }
}
