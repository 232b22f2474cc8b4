import _FenceLabSupport

/// Reads one JSON object strictly: every key must be taken exactly once by the decoder
/// (`finish()` refuses the rest as unknown), required keys must exist, types must match,
/// numbers must be finite. Errors carry the file and the dotted key path.
struct ObjectReader {
    let file: String
    let path: String
    private var members: [String: StrictJSON.Value] = [:]
    private var order: [String] = []
    private var taken: Set<String> = []

    init(_ value: StrictJSON.Value, file: String, path: String) throws(ScenarioError) {
        self.file = file
        self.path = path
        guard case .object(let list, _) = value else {
            throw .wrongType(file: file, keyPath: path, expected: "an object", got: value.kindDescription)
        }
        for (k, v) in list {
            if members[k] != nil { throw .duplicateKey(file: file, keyPath: Self.join(path, k)) }
            members[k] = v
            order.append(k)
        }
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
    func keyPath(_ key: String) -> String { Self.join(path, key) }
    func has(_ key: String) -> Bool { members[key] != nil }
    /// The keys in file order.
    var keys: [String] { order }

    /// The raw value of an optional key (marked as taken).
    mutating func optionalValue(_ key: String) -> StrictJSON.Value? {
        guard let v = members[key] else { return nil }
        taken.insert(key)
        if case .null = v { return nil }
        return v
    }

    mutating func value(_ key: String) throws(ScenarioError) -> StrictJSON.Value {
        guard let v = optionalValue(key) else {
            // A misspelt required key is reported as the unknown key the user typed, not as the one
            // the file lacks: `noise.sigmaa_m: unknown key` says where the typo is.
            if let typo = order.first(where: { !taken.contains($0) && Spelling.isNearMiss($0, key) }) {
                throw .misspeltKey(file: file, keyPath: keyPath(typo), expected: key)
            }
            throw .missingKey(file: file, keyPath: keyPath(key))
        }
        return v
    }

    /// Refuses any key the decoder did not take.
    func finish() throws(ScenarioError) {
        if let unknown = order.first(where: { !taken.contains($0) }) {
            throw .unknownKey(file: file, keyPath: keyPath(unknown))
        }
    }

    // MARK: typed access

    func number(_ v: StrictJSON.Value, at p: String) throws(ScenarioError) -> Double {
        guard case .number(let x, let text, _) = v else {
            throw .wrongType(file: file, keyPath: p, expected: "a number", got: v.kindDescription)
        }
        guard x.isFinite else { throw .invalidValue(file: file, keyPath: p, requirement: "must be finite", got: text) }
        return x
    }

    mutating func double(_ key: String) throws(ScenarioError) -> Double {
        try number(try value(key), at: keyPath(key))
    }

    mutating func optionalDouble(_ key: String) throws(ScenarioError) -> Double? {
        guard let v = optionalValue(key) else { return nil }
        return try number(v, at: keyPath(key))
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        let p = keyPath(key)
        let v = try value(key)
        return try integer(v, at: p, in: range)
    }

    mutating func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(ScenarioError) -> Int? {
        guard let v = optionalValue(key) else { return nil }
        return try integer(v, at: keyPath(key), in: range)
    }

    func integer(_ v: StrictJSON.Value, at p: String, in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        guard case .number(let x, let text, _) = v, x.isFinite, x == x.rounded(), abs(x) <= 9_007_199_254_740_992 else {
            throw .wrongType(file: file, keyPath: p, expected: "an integer", got: v.kindDescription)
        }
        let n = Int(x)
        guard range.contains(n) else {
            throw .invalidValue(
                file: file, keyPath: p,
                requirement: "must be within \(range.lowerBound)...\(range.upperBound)", got: text)
        }
        return n
    }

    mutating func string(_ key: String) throws(ScenarioError) -> String {
        let v = try value(key)
        guard case .string(let s, _) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "a string", got: v.kindDescription)
        }
        return s
    }

    mutating func optionalString(_ key: String) throws(ScenarioError) -> String? {
        guard let v = optionalValue(key) else { return nil }
        guard case .string(let s, _) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "a string", got: v.kindDescription)
        }
        return s
    }

    mutating func object(_ key: String) throws(ScenarioError) -> ObjectReader {
        try ObjectReader(try value(key), file: file, path: keyPath(key))
    }

    mutating func optionalObject(_ key: String) throws(ScenarioError) -> ObjectReader? {
        guard let v = optionalValue(key) else { return nil }
        return try ObjectReader(v, file: file, path: keyPath(key))
    }

    mutating func array(_ key: String) throws(ScenarioError) -> [StrictJSON.Value] {
        let v = try value(key)
        guard case .array(let items, _) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "an array", got: v.kindDescription)
        }
        return items
    }

    mutating func optionalArray(_ key: String) throws(ScenarioError) -> [StrictJSON.Value]? {
        guard let v = optionalValue(key) else { return nil }
        guard case .array(let items, _) = v else {
            throw .wrongType(file: file, keyPath: keyPath(key), expected: "an array", got: v.kindDescription)
        }
        return items
    }

    /// A one-of string (`kind`, `model`, `profile`).
    mutating func choice(_ key: String, _ allowed: [String]) throws(ScenarioError) -> String {
        let s = try string(key)
        guard allowed.contains(s) else {
            throw .invalidValue(
                file: file, keyPath: keyPath(key),
                requirement: "must be one of \(allowed.joined(separator: ", "))", got: "\"\(s)\"")
        }
        return s
    }

    // MARK: range checks (never clamp: refuse with the value)

    func check(_ ok: Bool, _ key: String, _ requirement: String, _ x: Double) throws(ScenarioError) {
        if !ok {
            throw .invalidValue(file: file, keyPath: keyPath(key), requirement: requirement, got: formatNumber(x))
        }
    }

    mutating func nonNegative(_ key: String) throws(ScenarioError) -> Double {
        let x = try double(key)
        try check(x >= 0, key, "must be ≥ 0", x)
        return x
    }

    mutating func positive(_ key: String) throws(ScenarioError) -> Double {
        let x = try double(key)
        try check(x > 0, key, "must be > 0", x)
        return x
    }

    mutating func probability(_ key: String) throws(ScenarioError) -> Double {
        let x = try double(key)
        try check(x >= 0 && x <= 1, key, "must be within 0...1", x)
        return x
    }
}
