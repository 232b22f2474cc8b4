import DriveSim
import Foundation
import GeoPolicy
import _FenceLabSupport

/// Why the built-in engine refused its input.
package enum EngineServerError: Error, Sendable, Hashable, CustomStringConvertible {
    case badFence(String)
    case badLine(line: Int, reason: String)

    package var description: String {
        switch self {
        case .badFence(let r): return "fence message: \(r)"
        case .badLine(let l, let r): return "input line \(l): \(r)"
        }
    }
}

/// The built-in engine (`FenceMonitor` + `Haversine`) behind the engine protocol:
/// the reference implementation of the engine side, and the yardstick for the
/// protocol's own overhead.
package enum EngineServer {
    /// Serves one session: reads request lines from `nextLine`, writes answers to `write`.
    /// - Parameters:
    ///   - maxAge_s: staleness limit applied by the monitor (default: none).
    ///   - flushEach: hand every answer to `write` at once (for `bench-engine`, which sends a fix
    ///     only after the answer to the one before); otherwise answers go in ~60 kB pieces.
    package static func serve(
        maxAge_s: Double = .infinity, flushEach: Bool = false, nextLine: () -> String?,
        write: (String) -> Void
    ) throws(EngineServerError) {
        guard let first = nextLine() else { return }
        let fence = try parseFence(first)
        let spec = try fence.ruleSpec()
        var monitor: FenceMonitor<AnyFenceRule, Haversine>
        do {
            monitor = try FenceMonitor(
                center: fence.center, evaluator: spec.evaluator(), distanceModel: Haversine(),
                maxAge_s: maxAge_s, logging: .off)
        } catch { throw .badFence("\(error)") }
        write(
            "{\"type\":\"ready\",\"protocol\":\(EngineProtocol.version),\"engine\":\"fencelab \(ToolVersion.string)\"}\n"
        )
        // Answers are appended as bytes and handed to `write` in ~60 kB pieces.
        var out = ByteSink()
        out.bytes.reserveCapacity(1 << 16)
        var lineNumber = 1
        // Plain fix lines take the dictionary-free scanner; any other line the full parser (same values).
        var fields = FlatJSONFields(keys: [
            "index", "timestamp", "latitude", "longitude", "horizontal_accuracy", "now", "type",
        ])
        while var line = nextLine() {
            lineNumber += 1
            var numbers: (Double?, Double?, Double?, Double?, Double?, Double?)
            if line.withUTF8({ fields.scan($0) }) {
                let v = fields.values
                numbers = (v[0]?.double, v[1]?.double, v[2]?.double, v[3]?.double, v[4]?.double, v[5]?.double)
            } else {
                let o: [String: EngineValue]
                do { o = try FlatJSON.parseObject(line) } catch {
                    throw .badLine(line: lineNumber, reason: error.description)
                }
                numbers = (
                    o["index"]?.double, o["timestamp"]?.double, o["latitude"]?.double,
                    o["longitude"]?.double, o["horizontal_accuracy"]?.double, o["now"]?.double
                )
            }
            guard let index = numbers.0, let t = numbers.1, let lat = numbers.2,
                let lon = numbers.3, let acc = numbers.4, let now = numbers.5
            else {
                throw .badLine(
                    line: lineNumber,
                    reason: "a fix needs index, timestamp, latitude, longitude, horizontal_accuracy, now")
            }
            guard let fixIndex = Int(exactly: index), fixIndex >= 0 else {
                throw .badLine(line: lineNumber, reason: "index must be a whole number ≥ 0, got \(index)")
            }
            let decision = monitor.process(
                Fix(timestamp_s: t, latitude: lat, longitude: lon, horizontalAccuracy_m: acc), now_s: now)
            out.append("{\"index\":")
            out.write(String(fixIndex))
            out.append(",\"state\":\"")
            out.write(decision.newState.rawValue)
            if let r = decision.rejection {
                out.append("\",\"rejected\":\"")
                out.write(r.rawValue)
            }
            out.append("\"}\n")
            if flushEach || out.bytes.count > 60_000 {
                write(String(decoding: out.bytes, as: UTF8.self))
                out.bytes.removeAll(keepingCapacity: true)
            }
        }
        if !out.bytes.isEmpty { write(String(decoding: out.bytes, as: UTF8.self)) }
    }

    /// The fence line, read by the one strict reader: `type` "fence", `protocol` exactly the
    /// integer 1 (not `true`, not `1.7`), `center` two numbers, `rule` an object of scalars,
    /// optional `rulesVersion` a string; any other key is refused.
    static func parseFence(_ line: String) throws(EngineServerError) -> EngineFence {
        let root: StrictJSON.Value
        do { root = try StrictJSON.parse(line) } catch { throw .badFence("not valid JSON: \(error)") }
        guard case .object(let members, _) = root else {
            throw .badFence("first line must be {\"type\":\"fence\",...}")
        }
        let allowed: Set<String> = ["type", "protocol", "center", "rule", "rulesVersion"]
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw .badFence("unknown key '\(ShownText.shown(unknown.key))'")
        }
        guard case .string("fence", _)? = root["type"] else {
            throw .badFence("first line must be {\"type\":\"fence\",...}")
        }
        guard case .number(let p, _, _)? = root["protocol"], Int(exactly: p) == EngineProtocol.version else {
            throw .badFence("protocol must be the number \(EngineProtocol.version)")
        }
        guard case .array(let c, _)? = root["center"], c.count == 2,
            case .number(let lat, _, _) = c[0], case .number(let lon, _, _) = c[1],
            let center = try? Coordinate(latitude: lat, longitude: lon)
        else {
            throw .badFence("center must be [latitude, longitude] within range")
        }
        guard case .object(let r, _)? = root["rule"] else { throw .badFence("rule must be an object") }
        var rule: [String: EngineValue] = [:]
        for (k, v) in r {
            switch v {
            case .string(let s, _): rule[k] = .string(s)
            case .number(let n, let text, _):
                guard n.isFinite else {
                    throw .badFence("rule.\(ShownText.shown(k)): number out of range: \(ShownText.shown(text))")
                }
                rule[k] = .number(n)
            default:
                throw .badFence("rule.\(ShownText.shown(k)) must be a number or a string, got \(v.kindDescription)")
            }
        }
        var rulesVersion = ""
        switch root["rulesVersion"] {
        case nil: break
        case .string(let s, _)?: rulesVersion = s
        case let v?: throw .badFence("rulesVersion must be a string, got \(v.kindDescription)")
        }
        return EngineFence(center: center, rule: rule, rulesVersion: rulesVersion)
    }
}
