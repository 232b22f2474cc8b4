/// The rows of one benchmark tool, in display order: what `BenchTool` runs, lists, counts and
/// compares. Names must be unique and every `reference` must name another row.
struct Registry: Sendable {
    let all: [Benchmark]

    /// The benchmark called `name`.
    func named(_ name: String) -> Benchmark? { all.first { $0.name == name } }

    /// Checks that names are unique and references exist (run at start-up).
    func validate() -> [String] {
        var problems: [String] = []
        var seen = Set<String>()
        for b in all {
            if !seen.insert(b.name).inserted { problems.append("duplicate benchmark name '\(b.name)'") }
            if let r = b.reference, named(r) == nil {
                problems.append("\(b.name): reference kernel '\(r)' is not registered")
            }
        }
        if all.isEmpty { problems.append("no benchmark registered") }
        return problems
    }
}
