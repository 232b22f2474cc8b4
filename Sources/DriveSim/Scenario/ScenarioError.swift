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
    /// A replicate index outside 0..<replicates.
    case invalidReplicate(scenario: String, replicate: Int, replicates: Int)
    /// The random generator could not be set up (GSL's reason).
    case generator(scenario: String, reason: String)

    public var description: String {
        let text: String
        switch self {
        case let .unreadable(file, reason): text = "\(file): cannot read: \(reason)"
        case let .malformedJSON(file, line, reason): text = "\(file):\(line): not valid JSON: \(reason)"
        case let .missingKey(file, path): text = "\(file): \(path): missing required key"
        case let .unknownKey(file, path): text = "\(file): \(path): unknown key"
        case let .misspeltKey(file, path, expected): text = "\(file): \(path): unknown key (did you mean \(expected)?)"
        case let .duplicateKey(file, path): text = "\(file): \(path): duplicate key"
        case let .wrongType(file, path, expected, got):
            text = "\(file): \(path.isEmpty ? "(top level)" : path): expected \(expected), got \(got)"
        case let .invalidValue(file, path, requirement, got): text = "\(file): \(path): \(requirement), got \(got)"
        case let .invalidReplicate(scenario, replicate, replicates):
            text = "\(scenario): replicate must be within 0...\(replicates - 1), got \(replicate)"
        case let .generator(scenario, reason): text = "\(scenario): random generator: \(reason)"
        }
        return String(text.map { $0.isNewline ? " " : $0 })
    }
}

/// Shortest exact text of a number as written in error messages: `-3`, `0.25`, `inf`.
func formatNumber(_ x: Double) -> String {
    if x.isFinite, x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    return "\(x)"
}
