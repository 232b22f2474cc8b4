import Foundation

/// How much more memory this process can take before an allocation fails: the smallest of what
/// its limits leave — the address-space limit (`ulimit -v`, `RLIMIT_AS`) less the address space
/// in use, the data-segment limit (`RLIMIT_DATA`) less the data in use, its cgroup's memory limit
/// less the cgroup's use (v2 `memory.max`/`memory.current`, v1
/// `memory.limit_in_bytes`/`memory.usage_in_bytes`) — and the machine's `MemAvailable`. Each
/// bound that cannot be read (another system) is left out; nil when none can.
package struct MemoryBudget: Sendable, Hashable {
    /// Bytes that can still be allocated.
    package var available_bytes: UInt64
    /// What sets it, for messages: `ulimit -v`, `ulimit -d`, `cgroup memory limit`, `available memory`.
    package var boundBy: String

    package init(available_bytes: UInt64, boundBy: String) {
        self.available_bytes = available_bytes
        self.boundBy = boundBy
    }

    /// The budget now.
    package static func current() -> MemoryBudget? {
        var bounds: [MemoryBudget] = []
        let status = procStatus()
        let limits = Syscalls.memoryLimits()
        if let limit = limits.addressSpace_bytes {
            bounds.append(
                MemoryBudget(available_bytes: limit &- min(limit, status["VmSize"] ?? 0), boundBy: "ulimit -v"))
        }
        if let limit = limits.data_bytes {
            bounds.append(
                MemoryBudget(available_bytes: limit &- min(limit, status["VmData"] ?? 0), boundBy: "ulimit -d"))
        }
        if let cgroup = cgroupRoom() {
            bounds.append(MemoryBudget(available_bytes: cgroup, boundBy: "cgroup memory limit"))
        }
        if let free = meminfo()["MemAvailable"] {
            bounds.append(MemoryBudget(available_bytes: free, boundBy: "available memory"))
        }
        return bounds.min { $0.available_bytes < $1.available_bytes }
    }

    /// `Key: N kB` lines of a /proc file, in bytes.
    static func kilobyteFields(_ path: String) -> [String: UInt64] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        return kilobyteFields(text: text)
    }

    /// The fields of `kilobyteFields` in `text`: lines whose words (split at ":", " " and tabs)
    /// are a key, a decimal number and `kB`, and maybe more. Scanned as bytes: split into
    /// substrings, /proc/self/status and /proc/meminfo took millions of instructions.
    static func kilobyteFields(text: String) -> [String: UInt64] {
        var fields: [String: UInt64] = [:]
        let bytes = Array(text.utf8)
        var at = 0
        // The next word of the line at `at` (nil at the line's end), skipping separators.
        func word() -> Range<Int>? {
            while at < bytes.count,
                bytes[at] == UInt8(ascii: ":") || bytes[at] == UInt8(ascii: " ")
                    || bytes[at] == UInt8(ascii: "\t")
            {
                at += 1
            }
            guard at < bytes.count, bytes[at] != UInt8(ascii: "\n") else { return nil }
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: ":"), bytes[at] != UInt8(ascii: " "),
                bytes[at] != UInt8(ascii: "\t"), bytes[at] != UInt8(ascii: "\n")
            {
                at += 1
            }
            return start..<at
        }
        while at < bytes.count {
            if let key = word(), let number = word(), let unit = word(), bytes[unit].elementsEqual("kB".utf8),
                !number.isEmpty, number.count <= 19, bytes[number].allSatisfy({ $0 >= 48 && $0 <= 57 })
            {
                let kib = bytes[number].reduce(UInt64(0)) { $0 * 10 + UInt64($1 - 48) }
                fields[String(decoding: bytes[key], as: UTF8.self)] = kib &* 1024
            }
            while at < bytes.count, bytes[at] != UInt8(ascii: "\n") { at += 1 }
            at += 1
        }
        return fields
    }

    static func procStatus() -> [String: UInt64] { kilobyteFields("/proc/self/status") }
    static func meminfo() -> [String: UInt64] { kilobyteFields("/proc/meminfo") }

    /// What this process's memory cgroup still allows (limit − use), nil without a readable limit.
    static func cgroupRoom() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        func number(_ path: String) -> UInt64? {
            guard let t = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return UInt64(t.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let path = String(parts[2])
            // v2 (`0::/path`) under /sys/fs/cgroup; v1's memory controller under /sys/fs/cgroup/memory.
            let (root, limitFile, useFile) =
                parts[1].isEmpty
                ? ("/sys/fs/cgroup", "memory.max", "memory.current")
                : ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
            guard parts[1].isEmpty || parts[1].split(separator: ",").contains("memory") else { continue }
            // Inside a container the path may be the host's: then the controller's root is ours.
            for dir in [root + path, root] {
                guard let limit = number(dir + "/" + limitFile) else { continue }
                // v1 writes "unlimited" as a page-rounded Int64.max; anything near it is no limit.
                guard limit < UInt64(1) << 60 else { break }
                return limit &- min(limit, number(dir + "/" + useFile) ?? 0)
            }
        }
        return nil
    }
}
