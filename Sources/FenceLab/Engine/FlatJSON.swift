/// A scalar value of an engine-protocol line (numbers as doubles; the protocol's string forms of non-finite values are read by `double`).
public enum EngineValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The number, accepting the protocol's string forms of non-finite values.
    public var double: Double? {
        switch self {
        case let .number(v): return v
        case let .string(s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        default: return nil
        }
    }

    public var string: String? {
        if case let .string(s) = self { return s }
        return nil
    }
}

/// Why a line is not a flat JSON object.
public struct FlatJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

/// Protocol lines: parsing through the device-log reader's strict RFC 8259 flat-object
/// parser (`FlatJSONParser`, fuzzed with the importers), plus the encoding helpers.
public enum FlatJSON {
    public static func parseObject(_ line: Substring.UTF8View) throws(FlatJSONError) -> [String: EngineValue] {
        try parse(Array(line))
    }

    public static func parseObject(_ line: String) throws(FlatJSONError) -> [String: EngineValue] {
        try parse(Array(line.utf8))
    }

    static func parse(_ bytes: [UInt8]) throws(FlatJSONError) -> [String: EngineValue] {
        let parsed: Result<[(key: String, value: FlatJSONValue)], DeviceLogProblemAtLine> = bytes.withUnsafeBufferPointer { buffer in
            var parser = FlatJSONParser(bytes: buffer, line: 1)
            do { return .success(try parser.object()) } catch let error as DeviceLogProblemAtLine {
                return .failure(error)
            } catch {
                return .failure(DeviceLogProblemAtLine(line: 1, problem: .json("\(error)")))
            }
        }
        let members: [(key: String, value: FlatJSONValue)]
        switch parsed {
        case let .success(m): members = m
        case let .failure(e): throw FlatJSONError(offset: 0, reason: "\(e.problem)")
        }
        var result: [String: EngineValue] = [:]
        for (key, value) in members {
            guard result[key] == nil else { throw FlatJSONError(offset: 0, reason: "duplicate key '\(key)'") }
            switch value {
            case let .string(s): result[key] = .string(s)
            case let .bool(b): result[key] = .bool(b)
            case .null: result[key] = .null
            case let .number(text):
                guard let v = Double(text), v.isFinite else { throw FlatJSONError(offset: 0, reason: "number out of range: \(text)") }
                result[key] = .number(v)
            }
        }
        return result
    }

    /// Escapes a string for a JSON string literal (without the quotes); the report writer's escaping.
    public static func escape(_ s: String) -> String {
        String(JSONValue.quoted(s).dropFirst().dropLast())
    }

    /// A number for the protocol: shortest round-trip text, non-finite values as strings.
    public static func number(_ v: Double) -> String {
        if v.isNaN { return "\"NaN\"" }
        if v.isInfinite { return v > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        return "\(v)"
    }
}
