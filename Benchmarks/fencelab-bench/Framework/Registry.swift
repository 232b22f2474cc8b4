/// Every benchmark of the suite, in display order. To add one: write a
/// `static let` in a file under `Suites/` and list its group here.
enum Registry {
    static let all: [Benchmark] =
        ReferenceKernels.all
        + FenceBenchmarks.all
        + GeoBenchmarks.all
        + RandomBenchmarks.all
        + KalmanBenchmarks.all
        + GeneratorBenchmarks.all
        + HarnessBenchmarks.all
        + ReplayBenchmarks.all
        + AllocationBenchmarks.all
        + SweepBenchmarks.all

    /// The benchmark called `name`.
    static func named(_ name: String) -> Benchmark? { all.first { $0.name == name } }

    /// Checks that names are unique and references exist (run at start-up).
    static func validate() -> [String] {
        var problems: [String] = []
        var seen = Set<String>()
        for b in all {
            if !seen.insert(b.name).inserted { problems.append("duplicate benchmark name '\(b.name)'") }
            if let r = b.reference, named(r) == nil {
                problems.append("\(b.name): reference kernel '\(r)' is not registered")
            }
        }
        return problems
    }
}
