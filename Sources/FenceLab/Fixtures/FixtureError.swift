/// Why a fixture file was refused. Every case names the file and, where there is
/// one, the key path inside it (`sequences[0].steps[3].accuracy_m`).
package enum FixtureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The directory or file could not be read.
    case unreadable(file: String, reason: String)
    /// The directory holds no `*.json` fixture.
    case noFixtures(directory: String)
    /// Not valid JSON (truncated, a bare NaN, a syntax error).
    case malformedJSON(file: String, reason: String)
    /// A key the format does not define.
    case unknownKey(file: String, keyPath: String)
    /// A required key is absent.
    case missingKey(file: String, keyPath: String)
    /// A value has the wrong JSON type.
    case wrongType(file: String, keyPath: String, expected: String, found: String)
    /// A value has the right type but is not acceptable.
    case invalidValue(file: String, keyPath: String, reason: String)
    /// The fixture was written for another rules version than the rule it runs against.
    case rulesVersionMismatch(file: String, fixtureVersion: String, ruleVersion: String, rule: String)

    package var description: String {
        switch self {
        case .unreadable(let f, let r): return "\(f): cannot read: \(r)"
        case .noFixtures(let d): return "\(d): no *.json fixture files"
        case .malformedJSON(let f, let r): return "\(f): not valid JSON (\(r))"
        case .unknownKey(let f, let k): return "\(f): \(k): unknown key"
        case .missingKey(let f, let k): return "\(f): \(k): missing required key"
        case .wrongType(let f, let k, let e, let found): return "\(f): \(k): expected \(e), found \(found)"
        case .invalidValue(let f, let k, let r): return "\(f): \(k): \(r)"
        case .rulesVersionMismatch(let f, let fv, let rv, let rule):
            return "\(f): rulesVersion: fixture was written for '\(fv)' but runs against rule \(rule) "
                + "with rulesVersion '\(rv)'; its expected results must be reviewed before the version is changed"
        }
    }
}
