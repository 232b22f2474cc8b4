import Foundation
import GeoPolicy

/// The values the tools take as text (`--fence LAT,LON`, `--rule SPEC`, a coordinate), parsed the
/// same way for the command line and for library callers; every error names the argument.
package enum ArgumentValue {
    /// A finite number; the error names the argument (`LAT1: not a number: 'x'`).
    package static func double(_ text: String, name: String) throws(OptionError) -> Double {
        guard let v = Double(text) else { throw .badValue("\(name): not a number: '\(text)'") }
        guard v.isFinite else { throw .badValue("\(name): must be finite, got \(text)") }
        return v
    }

    /// `LAT,LON` (degrees, latitude first); the error names `--fence` and the value.
    package static func fence(_ text: String) throws(OptionError) -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .badValue("--fence: expected LAT,LON (two numbers), got '\(text.prefix(60))'")
        }
        let lat = try double(parts[0].trimmingCharacters(in: .whitespaces), name: "--fence latitude")
        let lon = try double(parts[1].trimmingCharacters(in: .whitespaces), name: "--fence longitude")
        do { return try Coordinate(latitude: lat, longitude: lon) } catch {
            throw .badValue("--fence: \(error) ('\(text.prefix(60))')")
        }
    }

    /// `--rule SPEC` (nil: seed 000's rule); the error names `--rule`.
    package static func rule(_ text: String?) throws(OptionError) -> RuleSpec {
        guard let text else { return .default }
        do { return try RuleSpec.parse(text) } catch { throw .badValue("--rule: \(error)") }
    }

    /// `--notify SPEC` (`NotificationPolicy.parse`); the error names `--notify`.
    package static func notification(_ text: String) throws(OptionError) -> NotificationPolicy {
        do { return try NotificationPolicy.parse(text) } catch { throw .badValue("--notify: \(error)") }
    }

    /// `--rule SPEC[+INPUT]` (nil: seed 000's rule on raw fixes); the error names `--rule`.
    package static func fenceSetup(_ text: String?) throws(OptionError) -> FenceSetup {
        guard let text else { return FenceSetup(rule: .default) }
        do { return try FenceSetup.parse(text) } catch { throw .badValue("--rule: \(error)") }
    }
}
