import Foundation
import Testing
import _TestSupport

/// The layering `Package.swift` states, checked on the imports of every source file and on the
/// dependencies each target declares: GeoPolicy imports nothing but libm (CLibm is libm's sincos);
/// only GSLKit imports CGSL; only `_FenceLabSupport` imports the C library (its `Syscalls.swift`),
/// CMalloc, CZlib and CProcessControl; the device-log readers know nothing of the generator, the harness or the GSL;
/// nothing below the command line names the sweep, calibration or option targets, but the
/// benchmark kit, which is the command line of every bench tool built with it (and knows nothing
/// of the harness).
@Suite struct ModuleLayoutTests {
    /// The package's own modules each source module may import.
    static let allowed: [String: Set<String>] = [
        "GeoPolicy": ["CLibm"],
        "GSLKit": ["CGSL"],
        "_FenceLabSupport": ["GeoPolicy", "CMalloc", "CZlib", "CProcessControl"],
        "DriveSim": ["GeoPolicy", "GSLKit", "_FenceLabSupport"],
        "DeviceLogKit": ["GeoPolicy", "_FenceLabSupport"],
        "ReportKit": ["GeoPolicy", "DeviceLogKit", "_FenceLabSupport"],
        "FenceLab": ["GeoPolicy", "GSLKit", "DriveSim", "DeviceLogKit", "ReportKit", "_FenceLabSupport"],
        "FenceLabSweep": ["FenceLab", "GeoPolicy", "GSLKit", "DriveSim", "ReportKit", "_FenceLabSupport"],
        "FenceLabCalibration": ["GeoPolicy", "GSLKit", "DriveSim", "DeviceLogKit", "ReportKit", "_FenceLabSupport"],
        "_CommandLineKit": ["GeoPolicy", "_FenceLabSupport"],
        // The benchmark kit: no harness (a team's release build of it stays small).
        "FenceLabBench": ["CReference", "GeoPolicy", "GSLKit", "DriveSim", "_FenceLabSupport", "_CommandLineKit"],
        "FenceLabEngineBench": ["FenceLab", "FenceLabBench", "GeoPolicy", "DriveSim", "_FenceLabSupport"],
        "FenceLabCLI": [
            "FenceLab", "FenceLabSweep", "FenceLabCalibration", "FenceLabEngineBench", "_CommandLineKit", "GeoPolicy",
            "DeviceLogKit", "DriveSim", "ReportKit", "_FenceLabSupport",
        ],
        "fencelab-bench": [
            "FenceLabBench", "FenceLab", "FenceLabSweep", "FenceLabCalibration", "GeoPolicy", "DriveSim",
            "DeviceLogKit", "GSLKit",
            "ReportKit", "_FenceLabSupport", "_CommandLineKit", "CReference",
        ],
    ]

    /// The package's system-library modules (Sources/C*/module.modulemap).
    static let systemLibraries: Set<String> = ["CGSL", "CMalloc", "CZlib", "CProcessControl", "CLibm"]

    /// Each system library is imported by exactly one target (GSLKit for GSL, GeoPolicy for libm's
    /// sincos, _FenceLabSupport for the allocator setting, zlib and the process box), and every
    /// module map under Sources is one of them.
    @Test func eachSystemLibraryHasOneImporter() throws {
        for library in Self.systemLibraries {
            let importers = Self.allowed.filter { $0.value.contains(library) }.map(\.key)
            #expect(importers.count == 1, "\(library) may be imported by \(importers.sorted())")
        }
        let sources = TestPaths.packageRoot.appendingPathComponent("Sources")
        let maps = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter {
            FileManager.default.fileExists(atPath: sources.appendingPathComponent($0 + "/module.modulemap").path)
        }
        #expect(Set(maps) == Self.systemLibraries, "module maps under Sources: \(maps.sorted())")
    }

    /// Where each module's sources are, from the package root.
    static func folder(of module: String) -> String {
        module == "fencelab-bench" ? "Benchmarks/fencelab-bench" : "Sources/" + module
    }

    /// The C library's modules on each platform.
    static let cLibrary: Set<String> = ["Glibc", "Darwin", "Musl", "ucrt"]
    /// Toolchain modules every module but GeoPolicy may import.
    static let toolchain: Set<String> = ["Foundation", "FoundationEssentials", "Dispatch", "FoundationXML"]
    /// Files outside `_FenceLabSupport` that import the C library for its maths (libm) only.
    static let libmFiles: Set<String> = [
        "Sources/GeoPolicy/Geo/Math.swift",
        "Sources/DriveSim/Generation/GeneratedSample.swift",
        "Sources/DriveSim/Generation/NoiseProcess.swift",
        "Sources/DriveSim/Generation/RouteSampler.swift",
        "Sources/DriveSim/Generation/SphereStep.swift",
        "Benchmarks/fencelab-bench/Suites/Workloads.swift",
    ]
    /// C library calls that are not maths: a libm file naming one of these is doing system work
    /// that belongs in `_FenceLabSupport/Syscalls.swift`.
    static let systemCalls = [
        "open", "close", "read", "write", "pread", "pwrite", "fsync", "rename", "unlink", "mkdir", "lstat", "fstat",
        "stat", "getpid", "kill", "signal", "sigaction", "errno", "strerror", "snprintf", "isatty", "exit", "poll",
        "waitpid", "posix_spawn", "uname", "getenv", "setenv", "malloc", "free", "fopen", "fputs",
    ]

    /// The modules a Swift file imports (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(of text: String) -> Set<String> {
        var modules: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard words.first == "import", words.count >= 2 else { continue }
            let kinds = ["struct", "class", "enum", "func", "protocol", "typealias", "var", "let"]
            let path = words.count >= 3 && kinds.contains(String(words[1])) ? words[2] : words[1]
            modules.insert(String(path.split(separator: ".")[0]))
        }
        return modules
    }

    /// Identifiers of `systemCalls` that `text` calls (`name(`), comments left out.
    static func systemCallsNamed(in text: String) -> [String] {
        let code = text.split(separator: "\n").map { line in line.components(separatedBy: "//")[0] }.joined(
            separator: "\n")
        return systemCalls.filter { name in
            code.range(of: #"(?<![\w.])"# + name + #"\("#, options: .regularExpression) != nil
        }
    }

    /// Each target's declared dependencies in Package.swift (`name: "X", dependencies: [...]`).
    static func declaredDependencies(_ manifest: String) throws -> [String: Set<String>] {
        let regex = try NSRegularExpression(pattern: #"name: "([\w-]+)",\s*dependencies: \[([^\]]*)\]"#)
        var out: [String: Set<String>] = [:]
        for m in regex.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            guard let name = Range(m.range(at: 1), in: manifest), let list = Range(m.range(at: 2), in: manifest) else {
                continue
            }
            out[String(manifest[name])] = Set(quotedNames(manifest[list]))
        }
        return out
    }

    /// The quoted names of a manifest list's text (`"A", "B"` → A, B).
    static func quotedNames(_ list: Substring) -> [String] {
        list.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func swiftFiles(in folder: URL) throws -> [String] {
        try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test func importsParse() {
        #expect(
            Self.imports(of: "import A\n@testable import B\nimport struct C.D\n// import E\nlet importX = 1\n") == [
                "A", "B", "C",
            ])
    }

    @Test func systemCallsAreFoundOutsideComments() {
        #expect(Self.systemCallsNamed(in: "let x = sin(a)\n// open(path)\nlet fd = open(p, 0)\n") == ["open"])
        #expect(Self.systemCallsNamed(in: "let s = cbrt(x) + FileSystem.open(x) + reopen(y)") == [])
    }

    @Test func everyModuleImportsOnlyWhatItsLayerAllows() throws {
        let root = TestPaths.packageRoot
        var checked = 0
        for (module, allowed) in Self.allowed {
            let folder = root.appendingPathComponent(Self.folder(of: module))
            let files = try Self.swiftFiles(in: folder)
            #expect(!files.isEmpty, "no sources in \(module)")
            for file in files {
                let path = Self.folder(of: module) + "/" + file
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                var permitted = allowed.union(module == "GeoPolicy" ? [] : Self.toolchain)
                if module == "_FenceLabSupport" || Self.libmFiles.contains(path) { permitted.formUnion(Self.cLibrary) }
                let bad = Self.imports(of: text).subtracting(permitted)
                #expect(bad.isEmpty, "\(path) imports \(bad.sorted())")
                if Self.libmFiles.contains(path) {
                    let calls = Self.systemCallsNamed(in: text)
                    #expect(calls.isEmpty, "\(path) imports the C library for libm but calls \(calls)")
                }
                checked += 1
            }
        }
        #expect(checked > 150)
    }

    /// Every source folder is in the table (a new target cannot escape the check), and every
    /// target's dependencies in Package.swift are ones the table allows.
    @Test func packageManifestDeclaresOnlyAllowedDependencies() throws {
        let root = TestPaths.packageRoot
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        let swiftFolders = try folders.filter {
            !(try Self.swiftFiles(in: root.appendingPathComponent("Sources/" + $0))).isEmpty
        }
        #expect(
            Set(swiftFolders).subtracting(Self.allowed.keys).isEmpty,
            "Sources/ folders not in the table: \(swiftFolders)")
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declared = try Self.declaredDependencies(manifest)
        #expect(declared.count >= 20, "found the dependency lists of only \(declared.keys.sorted())")
        for (module, allowed) in Self.allowed {
            let deps = declared[module] ?? []
            #expect(deps.subtracting(allowed).isEmpty, "\(module) depends on \(deps.subtracting(allowed).sorted())")
        }
        #expect(declared["GeoPolicy"] == ["CLibm"], "GeoPolicy depends on nothing but libm's sincos")
    }

    /// The release setting `executableSwiftSettings` (an unsafe compiler flag) goes only to
    /// targets that no library product contains, since another package cannot depend on a
    /// product whose targets carry unsafe flags, and the two executables take it.
    @Test func executableOnlySettingsStayOutOfLibraryProducts() throws {
        let root = TestPaths.packageRoot
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let whole = NSRange(manifest.startIndex..., in: manifest)
        let declared = try Self.declaredDependencies(manifest)
        // Each target's text runs from its `.target(name:` to the next target's.
        let targetRegex = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name: "([\w-]+)""#)
        let starts = targetRegex.matches(in: manifest, range: whole)
        var flagged: Set<String> = []
        for (i, m) in starts.enumerated() {
            let end = i + 1 < starts.count ? starts[i + 1].range.location : whole.length
            let text = (manifest as NSString).substring(
                with: NSRange(location: m.range.location, length: end - m.range.location))
            if text.contains("swiftSettings: executableSwiftSettings") {
                flagged.insert((manifest as NSString).substring(with: m.range(at: 1)))
            }
        }
        let productRegex = try NSRegularExpression(pattern: #"\.library\(name: "[\w-]+", targets: \[([^\]]*)\]\)"#)
        var inProducts: Set<String> = []
        var queue: [String] = []
        for m in productRegex.matches(in: manifest, range: whole) {
            guard let list = Range(m.range(at: 1), in: manifest) else { continue }
            queue += Self.quotedNames(manifest[list])
        }
        #expect(queue.contains("GeoPolicy") && queue.contains("FenceLabBench"), "library products found: \(queue)")
        while let target = queue.popLast() {
            guard inProducts.insert(target).inserted else { continue }
            queue += declared[target] ?? []
        }
        #expect(flagged.isSuperset(of: ["FenceLabCLI", "fencelab-bench"]), "flagged: \(flagged.sorted())")
        #expect(
            flagged.isDisjoint(with: inProducts),
            "in a library product: \(flagged.intersection(inProducts).sorted())")
        #expect(manifest.contains("-disable-concrete-type-metadata-mangled-name-accessors"))
    }

    /// Every test file imports only package modules its test target declares: a module that is
    /// merely built earlier by chance fails a clean build.
    @Test func testFilesImportOnlyDeclaredDependencies() throws {
        let root = TestPaths.packageRoot
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declared = try Self.declaredDependencies(manifest)
        let packageModules = Set(Self.allowed.keys).union(["_TestSupport", "CReference"]).union(Self.systemLibraries)
        var checked = 0
        for target in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Tests").path)
        where target.hasSuffix("Tests") {
            let deps = try #require(declared[target], "Package.swift declares no dependencies for \(target)")
            let folder = root.appendingPathComponent("Tests/" + target)
            for file in try Self.swiftFiles(in: folder) {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let missing = Self.imports(of: text).intersection(packageModules).subtracting(deps)
                #expect(
                    missing.isEmpty,
                    "Tests/\(target)/\(file) imports \(missing.sorted()), not a dependency of \(target)")
                checked += 1
            }
        }
        #expect(checked > 80)
    }

    /// C functions with names no Swift method here shares: calling one anywhere but
    /// `Syscalls.swift` (Foundation re-exports the C library, so an import check alone misses
    /// it) puts a system call outside the one seam.
    static let distinctiveCalls = [
        "stat", "lstat", "fstat", "getpid", "kill", "signal", "strerror", "isatty", "fsync", "unlink", "mkdir",
        "usleep", "clock_gettime", "realpath", "fcntl", "poll", "waitpid", "waitid", "posix_spawn", "pipe",
        "mkstemp", "ftruncate", "pread", "pwrite", "vsnprintf", "snprintf", "strtod", "localeconv", "mallopt",
        "fflush", "getenv", "memcmp", "strdup",
    ]

    @Test func noCLibraryCallOutsideTheSyscallFile() throws {
        let root = TestPaths.packageRoot
        var offenders: [String] = []
        for module in Self.allowed.keys {
            let folder = root.appendingPathComponent(Self.folder(of: module))
            for file in try Self.swiftFiles(in: folder) {
                let path = Self.folder(of: module) + "/" + file
                guard path != "Sources/_FenceLabSupport/Syscalls.swift" else { continue }
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let code = text.split(separator: "\n").map { $0.components(separatedBy: "//")[0] }.joined(
                    separator: "\n")
                for name in Self.distinctiveCalls
                where code.range(of: #"(?<![\w.])"# + name + #"\("#, options: .regularExpression) != nil {
                    offenders.append("\(path): \(name)")
                }
                if code.range(of: #"(?<![\w.])errno\b"#, options: .regularExpression) != nil {
                    offenders.append("\(path): errno")
                }
            }
        }
        #expect(offenders.isEmpty, "C library calls outside Syscalls.swift: \(offenders)")
    }

    /// Only `_FenceLabSupport` and the libm files name the C library; the support target holds
    /// its system calls in one file.
    @Test func systemCallsLiveInOneFile() throws {
        let folder = TestPaths.packageRoot.appendingPathComponent("Sources/_FenceLabSupport")
        var importers: [String] = []
        for file in try Self.swiftFiles(in: folder) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            if !Self.imports(of: text).isDisjoint(with: Self.cLibrary) { importers.append(file) }
        }
        #expect(importers == ["Syscalls.swift"], "files of _FenceLabSupport importing the C library: \(importers)")
    }
}
