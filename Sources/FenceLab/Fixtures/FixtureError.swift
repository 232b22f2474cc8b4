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
        case let .unreadable(f, r): return "\(f): cannot read: \(r)"
        case let .noFixtures(d): return "\(d): no *.json fixture files"
        case let .malformedJSON(f, r): return "\(f): not valid JSON (\(r))"
        case let .unknownKey(f, k): return "\(f): \(k): unknown key"
        case let .missingKey(f, k): return "\(f): \(k): missing required key"
        case let .wrongType(f, k, e, found): return "\(f): \(k): expected \(e), found \(found)"
        case let .invalidValue(f, k, r): return "\(f): \(k): \(r)"
        case let .rulesVersionMismatch(f, fv, rv, rule):
            return "\(f): rulesVersion: fixture was written for '\(fv)' but runs against rule \(rule) "
                + "with rulesVersion '\(rv)'; its expected results must be reviewed before the version is changed"
        }
    }
}
