import Foundation

/// The numeric axis labels of a page's SVG plots, read from the SVG text (`<text class="tick-x">`,
/// `tick-y`, `tick-t` inside each `<svg>`), and what a reader expects of them: labels on a grid of
/// one nice step (1, 2, 2.5 or 5 × 10ᵏ; time-natural for time axes), every label a multiple of it.
/// Independent of the tick algorithm: it parses the printed text only.
public enum AxisLabelCheck {
    /// One axis: the plot it is in (0-based over the page's `<svg>`s), its class and its labels in page order.
    public struct Axis: CustomStringConvertible {
        public let plot: Int
        public let kind: String
        public let labels: [String]

        public init(plot: Int, kind: String, labels: [String]) {
            self.plot = plot
            self.kind = kind
            self.labels = labels
        }

        public var description: String { "plot \(plot) \(kind): \(labels.joined(separator: " | "))" }
    }

    /// Every labelled axis of `html`.
    public static func axes(in html: String) -> [Axis] {
        var out: [Axis] = []
        for (k, chunk) in html.components(separatedBy: "<svg").dropFirst().enumerated() {
            let svg = chunk.components(separatedBy: "</svg>").first ?? ""
            var labels: [String: [String]] = [:]
            var order: [String] = []
            for piece in svg.components(separatedBy: "<text class=\"tick-").dropFirst() {
                let kind = "tick-" + (piece.split(separator: "\"", maxSplits: 1).first.map(String.init) ?? "")
                guard let open = piece.firstIndex(of: ">"), let close = piece.range(of: "</text>") else { continue }
                let text = String(piece[piece.index(after: open)..<close.lowerBound])
                if labels[kind] == nil { order.append(kind) }
                labels[kind, default: []].append(text)
            }
            out += order.map { Axis(plot: k, kind: $0, labels: labels[$0] ?? []) }
        }
        return out
    }

    /// The value a label prints: `12.5 m` → 12.5, `2.5e6` → 2.5e6, `0.02/m` → 0.02; on a time axis
    /// also `45 s`, `20 min`, `1 h 30 min`, `2 d` (in seconds). Nil when it is not a number.
    public static func value(of label: String, time: Bool) -> Double? {
        let words = label.split(separator: " ").map(String.init)
        if time, words.count >= 2, words.count % 2 == 0 {
            let units: [String: Double] = ["s": 1, "min": 60, "h": 3600, "d": 86400]
            var total = 0.0
            for i in Swift.stride(from: 0, to: words.count, by: 2) {
                guard let v = Double(words[i]), let u = units[words[i + 1]] else { return nil }
                total += v * u
            }
            return total
        }
        let head = label.prefix { $0 != " " && $0 != "/" }
        return Double(head)
    }

    /// 1, 2, 2.5 or 5 × 10ᵏ (to 10⁻⁹ relative).
    public static func isNiceStep(_ step: Double) -> Bool {
        guard step > 0, step.isFinite else { return false }
        let p = pow(10, log10(step).rounded(.down))
        return [1.0, 2, 2.5, 5, 10].contains { abs(step / p - $0) <= 1e-9 * $0 }
    }

    /// A time-natural step: a nice step below a second; 1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30
    /// min; 1, 2, 3, 6, 12 h; a nice number of days.
    public static func isTimeStep(_ step_s: Double) -> Bool {
        let natural: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200]
        if step_s < 1 { return isNiceStep(step_s) }
        if natural.contains(where: { abs($0 - step_s) <= 1e-9 * $0 }) { return true }
        return step_s >= 86400 && isNiceStep(step_s / 86400)
    }

    /// What is wrong with one axis's labels (empty when they sit on a nice grid): unparsable
    /// labels, unequal gaps, a step that is not nice, a label off the multiples of the step.
    public static func problems(of axis: Axis) -> [String] {
        if axis.kind == "tick-l" { return logProblems(of: axis) }
        let time = axis.kind == "tick-t"
        let values = axis.labels.map { value(of: $0, time: time) }
        if values.contains(where: { $0 == nil }) { return ["\(axis): a label is not a number"] }
        let v = values.compactMap { $0 }
        guard v.count >= 2 else { return [] }
        let step = v[1] - v[0]
        var out: [String] = []
        if zip(v, v.dropFirst()).contains(where: { abs(($1 - $0) - step) > 1e-9 * abs(step) }) {
            out.append("\(axis): unequal gaps")
        }
        if !(time ? isTimeStep(step) : isNiceStep(step)) { out.append("\(axis): step \(step) is not nice") }
        if v.contains(where: { abs($0 / step - ($0 / step).rounded()) > 1e-6 }) {
            out.append("\(axis): a label is not a multiple of \(step)")
        }
        return out
    }

    /// A logarithmic axis (`tick-l`): every label 1, 2 or 5 × 10ᵏ, increasing, no decade skipped.
    public static func logProblems(of axis: Axis) -> [String] {
        let values = axis.labels.map { value(of: $0, time: false) }
        if values.contains(where: { $0 == nil }) { return ["\(axis): a label is not a number"] }
        let v = values.compactMap { $0 }
        var out: [String] = []
        for x in v {
            let p = pow(10, log10(x).rounded(.down))
            if !(x > 0) || ![1.0, 2, 5, 10].contains(where: { abs(x / p - $0) <= 1e-9 * $0 }) {
                out.append("\(axis): \(x) is not 1, 2 or 5 × 10ᵏ")
            }
        }
        if zip(v, v.dropFirst()).contains(where: { !($1 > $0 && $1 <= 10 * $0 * (1 + 1e-9)) }) {
            out.append("\(axis): labels not increasing by at most a decade")
        }
        return out
    }

    /// Every problem of every axis of `html`.
    public static func problems(in html: String) -> [String] { axes(in: html).flatMap(problems(of:)) }

    /// A `<text>` of a plot with its estimated box: 12 px text, 7 px a character, the baseline 10 px
    /// below its top and 2 px above its bottom; `text-anchor` moves the box (start, middle, end).
    public struct TextBox: CustomStringConvertible {
        public let cls: String, text: String
        public let x0: Double, y0: Double, x1: Double, y1: Double
        public var description: String { "\(cls) '\(text)' [\(x0), \(y0)]–[\(x1), \(y1)]" }
        func overlaps(_ o: TextBox) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
    }

    /// The tick labels and marker labels (`class="mark-label"`) of each plot of `html`.
    public static func labelBoxes(in html: String) -> [[TextBox]] {
        html.components(separatedBy: "<svg").dropFirst().map { chunk in
            let svg = chunk.components(separatedBy: "</svg>").first ?? ""
            return svg.components(separatedBy: "<text class=\"").dropFirst().compactMap { piece -> TextBox? in
                let cls = piece.split(separator: "\"", maxSplits: 1).first.map(String.init) ?? ""
                guard cls.hasPrefix("tick-") || cls == "mark-label", let open = piece.firstIndex(of: ">"),
                    let close = piece.range(of: "</text>")
                else { return nil }
                let tag = String(piece[..<open])
                func attribute(_ name: String) -> String? {
                    tag.components(separatedBy: " \(name)=\"").dropFirst().first?.split(separator: "\"").first.map(
                        String.init)
                }
                guard let x = attribute("x").flatMap(Double.init), let y = attribute("y").flatMap(Double.init) else {
                    return nil
                }
                let text = String(piece[piece.index(after: open)..<close.lowerBound])
                let w = Double(text.count) * 7
                let left: Double
                switch attribute("text-anchor") {
                case "end": left = x - w
                case "middle": left = x - w / 2
                default: left = x
                }
                return TextBox(cls: cls, text: text, x0: left, y0: y - 10, x1: left + w, y1: y + 2)
            }
        }
    }

    /// Marker labels that overprint a tick label or another marker label, per plot.
    public static func overprints(in html: String) -> [String] {
        var out: [String] = []
        for (k, boxes) in labelBoxes(in: html).enumerated() {
            let marks = boxes.filter { $0.cls == "mark-label" }
            for (i, m) in marks.enumerated() {
                for o in boxes where o.cls != "mark-label" && m.overlaps(o) { out.append("plot \(k): \(m) over \(o)") }
                for o in marks[(i + 1)...] where m.overlaps(o) { out.append("plot \(k): \(m) over \(o)") }
            }
        }
        return out
    }
}
