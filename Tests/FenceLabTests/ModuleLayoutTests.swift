import Foundation
import Testing
import _TestSupport

/// The layering the README's "Layout" section states, checked on the imports of every source file:
/// only GSLKit imports CGSL and only FenceLab CMalloc; GeoPolicy imports no GSL and no Foundation (no I/O); the device-log
/// readers (DeviceLogKit) know nothing of the harness, the GSL or the command line.
@Suite struct ModuleLayoutTests {
    /// Modules each source module may not import.
    static let forbidden: [String: Set<String>] = [
        "GeoPolicy": ["Foundation", "CGSL", "GSLKit", "DriveSim", "DeviceLogKit", "FenceLab", "CMalloc"],
        "DeviceLogKit": ["CGSL", "GSLKit", "FenceLab", "fencelab", "CMalloc"],
        "DriveSim": ["CGSL", "DeviceLogKit", "FenceLab", "CMalloc"],
        "GSLKit": ["CMalloc", "DriveSim", "DeviceLogKit", "FenceLab", "fencelab"],
        "FenceLab": ["CGSL", "fencelab"],
        "fencelab": ["CGSL", "CMalloc"],
    ]

    /// The modules a Swift file imports (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(of text: String) -> Set<String> {
        var modules: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard words.first == "import", words.count >= 2 else { continue }
            let path = words.count >= 3 && ["struct", "class", "enum", "func", "protocol", "typealias", "var", "let"].contains(words[1])
                ? words[2] : words[1]
            modules.insert(String(path.split(separator: ".")[0]))
        }
        return modules
    }

    @Test func importsParse() {
        #expect(Self.imports(of: "import A\n@testable import B\nimport struct C.D\n// import E\nlet importX = 1\n") == ["A", "B", "C"])
    }

    @Test func everyModuleImportsOnlyWhatItsLayerAllows() throws {
        let sources = TestPaths.packageRoot.appendingPathComponent("Sources")
        var checked = 0
        for (module, banned) in Self.forbidden {
            let folder = sources.appendingPathComponent(module)
            let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "no sources in \(module)")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let bad = Self.imports(of: text).intersection(banned)
                #expect(bad.isEmpty, "Sources/\(module)/\(file) imports \(bad.sorted())")
                checked += 1
            }
        }
        #expect(checked > 100)
    }
}
