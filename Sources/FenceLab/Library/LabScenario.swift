import DriveSim
import GeoPolicy

/// A scenario ready for `RuleLab.run`: a strictly decoded scenario file
/// (docs/scenario-format.md) with where it came from.
///
/// Load one with `RuleLab.loadScenario(path:)`, or build one in code from JSON text with
/// `RuleLab.scenario(json:name:)`. The fence centre, route, sampling, noise, accuracy and
/// faults come from the file; the rule that decides is the one passed to `run`.
public struct LabScenario: Sendable, Hashable {
    let spec: ScenarioSpec
    /// The path the scenario was read from, or the name given to JSON text.
    public let path: String
    /// Lower-case hex SHA-256 of the file's bytes (reports record it).
    public let sha256: String

    init(spec: ScenarioSpec, path: String, sha256: String) {
        self.spec = spec
        self.path = path
        self.sha256 = sha256
    }

    /// The scenario's `name` (reports use it).
    public var name: String { spec.name }
    /// The rules version the scenario (and its `expect` bounds) was recorded for.
    public var rulesVersion: String { spec.rulesVersion }
    /// The scenario's replicate count (1…100 000); `run(replicates:)` may override it.
    public var replicates: Int { spec.replicates }
    /// The scenario's seed; `run(seed:)` may override it.
    public var seed: UInt64 { spec.seed }
    /// Length of each replicate in seconds (`sampling.duration_s`, > 0).
    public var duration_s: Double { spec.sampling.duration_s }
    /// The fence centre (a validated coordinate).
    public var center: Coordinate { spec.fence.center }
    /// The metric bounds of the file's `expect` block as `(path, min, max)`, sorted by path.
    public var expectations: [(path: String, min: Double?, max: Double?)] {
        spec.expect.map { ($0.metric, $0.min, $0.max) }
    }
}
