import GeoPolicy

/// Why a scenario file was refused or a scenario could not be generated.
///
/// Every case names the file and, where there is one, the key path (`noise.sigma_m`,
/// `route.points[2]`) and the offending value; `description` is exactly one line.
public enum ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file (or folder) could not be read.
    case unreadable(file: String, reason: String)
    /// The bytes are not JSON; `line` is 1-based.
    case malformedJSON(file: String, line: Int, reason: String)
    /// A required key is absent.
    case missingKey(file: String, keyPath: String)
    /// A key the contract does not define (often a typo).
    case unknownKey(file: String, keyPath: String)
    /// An unknown key that is a near miss of a required key the object lacks (a typo).
    case misspeltKey(file: String, keyPath: String, expected: String)
    /// A key appears twice in one object.
    case duplicateKey(file: String, keyPath: String)
    /// A value of the wrong JSON type.
    case wrongType(file: String, keyPath: String, expected: String, got: String)
    /// A value of the right type outside its valid range; `requirement` reads "must be ≥ 0".
    case invalidValue(file: String, keyPath: String, requirement: String, got: String)
    /// A spec string (a sampling policy) that its own parser refused; `reason` names the part.
    case invalidSpec(file: String, keyPath: String, reason: String)
    /// A scenario given twice: `file` is `first` again (`reason`: the same file, or the same name).
    case duplicateScenario(file: String, first: String, reason: String)
    /// A bad line or entry of a place file (`places.file`): `line` is 1-based (0: the file as a
    /// whole), `key` the column or key path.
    case invalidPlaceFile(file: String, line: Int, key: String, reason: String)
    /// A replicate index outside 0..<replicates.
    case invalidReplicate(scenario: String, replicate: Int, replicates: Int)
    /// The random generator could not be set up (GSL's reason).
    case generator(scenario: String, reason: String)

    /// One line; every echoed piece (key path, value, reason) at most `ShownText.defaultLimit`
    /// characters, however large the offending input; control characters escaped everywhere.
    public var description: String {
        func c(_ s: String) -> String { ShownText.shown(s) }
        // Paths as given (bounded by PATH_MAX), control characters escaped.
        func f(_ s: String) -> String { ShownText.escapingControls(s) }
        switch self {
        case .unreadable(let file, let reason): return "\(f(file)): cannot read: \(c(reason))"
        case .malformedJSON(let file, let line, let reason): return "\(f(file)):\(line): not valid JSON: \(c(reason))"
        case .missingKey(let file, let path): return "\(f(file)): \(c(path)): missing required key"
        case .unknownKey(let file, let path): return "\(f(file)): \(c(path)): unknown key"
        case .misspeltKey(let file, let path, let expected):
            return "\(f(file)): \(c(path)): unknown key (did you mean \(c(expected))?)"
        case .duplicateKey(let file, let path): return "\(f(file)): \(c(path)): duplicate key"
        case .wrongType(let file, let path, let expected, let got):
            return "\(f(file)): \(path.isEmpty ? "(top level)" : c(path)): expected \(expected), got \(c(got))"
        case .invalidValue(let file, let path, let requirement, let got):
            return "\(f(file)): \(c(path)): \(requirement), got \(c(got))"
        case .invalidSpec(let file, let path, let reason): return "\(f(file)): \(c(path)): \(reason)"
        case .duplicateScenario(let file, let first, let reason):
            return "\(f(file)): \(reason) as \(f(first)); give each scenario once"
        case .invalidPlaceFile(let file, let line, let key, let reason):
            return "\(f(file))\(line > 0 ? ":\(line)" : ""): \(key.isEmpty ? "" : c(key) + ": ")\(c(reason))"
        case .invalidReplicate(let scenario, let replicate, let replicates):
            return "\(f(scenario)): replicate must be within 0...\(replicates - 1), got \(replicate)"
        case .generator(let scenario, let reason): return "\(f(scenario)): random generator: \(c(reason))"
        }
    }
}

/// Shortest exact text of a number as written in error messages: `-3`, `0.25`, `inf`.
func formatNumber(_ x: Double) -> String {
    if x.isFinite, x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    return "\(x)"
}
