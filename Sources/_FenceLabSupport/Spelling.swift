/// Near-miss spelling, for "did you mean" in scenario keys and command-line options.
package enum Spelling {
    /// True when `a` and `b` differ by at most two single-character edits (Levenshtein), ignoring case.
    package static func isNearMiss(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased().utf8)
        let y = Array(b.lowercased().utf8)
        guard abs(x.count - y.count) <= 2, !x.isEmpty, !y.isEmpty else { return false }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = Swift.min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count] <= 2
    }
}
