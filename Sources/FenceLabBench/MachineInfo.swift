import Foundation
import GSLKit
import _FenceLabSupport

/// Where and with what a run was measured; stored in every baseline.
package struct MachineInfo: Codable, Sendable, Hashable {
    package var cpuModel: String
    package var cores: Int
    package var operatingSystem: String
    package var toolchain: String
    package var gslVersion: String
    /// `valgrind --version` of a `--metric instructions` run (nil for time runs).
    package var valgrindVersion: String?
    package var date: String

    package static func current(valgrindVersion: String? = nil) -> MachineInfo {
        MachineInfo(
            cpuModel: cpuModel(), cores: ProcessInfo.processInfo.activeProcessorCount,
            operatingSystem: operatingSystem(), toolchain: toolchain,
            gslVersion: GSLRuntime.version, valgrindVersion: valgrindVersion,
            date: ISO8601DateFormatter().string(from: Date()))
    }

    /// One warning line per version that differs from `baseline` (toolchain, GSL, valgrind):
    /// instruction counts are a property of the compiled code, so they move with the compiler.
    package func versionWarnings(against baseline: MachineInfo, baselineName: String) -> [String] {
        var warnings: [String] = []
        func check(_ what: String, _ now: String?, _ then: String?) {
            guard let now, let then, now != then else { return }
            warnings.append(
                "warning: baseline '\(baselineName)' was recorded with \(what) \(then), this run uses \(now); counts move with it, re-save the baseline for this \(what)"
            )
        }
        check("toolchain", toolchain, baseline.toolchain)
        check("GSL", gslVersion, baseline.gslVersion)
        check("valgrind", valgrindVersion, baseline.valgrindVersion)
        return warnings
    }

    /// `model name` from /proc/cpuinfo (Linux), else "unknown".
    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    static func operatingSystem() -> String {
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
                return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return ProcessInfo.processInfo.operatingSystemVersionString
    }

    /// The Swift compiler that built this binary (the run report's compile-time check).
    static let toolchain: String = ToolVersion.swiftToolchain

    package var summary: String {
        "\(cpuModel), \(cores) cores, \(operatingSystem), \(toolchain), GSL \(gslVersion)\(valgrindVersion.map { ", \($0)" } ?? ""), \(date)"
    }
}
