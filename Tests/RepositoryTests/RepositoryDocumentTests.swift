import DriveSim
import FenceLab
import FenceLabSweep
import Foundation
import GSLKit
import ReportKit
import Testing
import _TestSupport

/// The repository is self-contained: every Markdown document a file names (a Markdown link,
/// a backticked path, a source comment, a help text) exists in the repository, and no file
/// names the founding design note, which users of the repository do not have.
@Suite struct RepositoryDocumentTests {
    /// The design note's file name, assembled so this file does not name it itself.
    static let designNote = "DESIGN" + ".md"

    @Test func everyNamedDocumentExists() throws {
        let files = try RepositoryScan.textFiles(root: TestPaths.packageRoot)
        #expect(files.count > 100, "the scan found only \(files.count) files under \(TestPaths.packageRoot.path)")
        var problems: [String] = []
        for file in files {
            problems += RepositoryScan.missingDocuments(in: file, root: TestPaths.packageRoot)
        }
        #expect(problems.isEmpty, "documents named but not in the repository:\n\(problems.joined(separator: "\n"))")
    }

    @Test func noFileNamesTheDesignNote() throws {
        let files = try RepositoryScan.textFiles(root: TestPaths.packageRoot)
        let hits = files.flatMap { RepositoryScan.mentions(of: Self.designNote, in: $0) }
        #expect(hits.isEmpty, "name the repository's own docs instead (docs/*.md):\n\(hits.joined(separator: "\n"))")
    }

    /// The scanner on text with known answers, so the two tests above can fail. Written with
    /// `.MD` and lowered, so that this file does not itself name missing documents.
    @Test func scannerFindsMissingDocumentsAndAcceptsRealOnes() throws {
        func md(_ s: String) -> String { s.replacingOccurrences(of: ".MD", with: ".md") }
        let text = md(
            """
            See [the format](scenario-format.MD#fence) and `docs/report-format.MD`.
            // Contract in docs/nowhere.MD and [gone](../docs/gone.MD), written to report.MD.
            A folder link [fixtures](../scenarios/fixtures/) and a [missing folder](../nothere/).
            Not links: [a](https://example.com/x.MD), [b](#anchor), `Z|±hh:mm`.
            """)
        let file = RepositoryScan.TextFile(relativePath: md("docs/example.MD"), text: text)
        let problems = RepositoryScan.missingDocuments(in: file, root: TestPaths.packageRoot)
        #expect(
            problems
                == [
                    "docs/example.MD:2: docs/nowhere.MD", "docs/example.MD:2: ../docs/gone.MD",
                    "docs/example.MD:3: ../nothere/",
                ].map(md), "\(problems)")
        // In source files only document names count: `x[i](y)` is code, not a link.
        let code = RepositoryScan.TextFile(
            relativePath: "Sources/X.swift", text: md("let y = f[0](z) // see docs/nowhere.MD"))
        #expect(
            RepositoryScan.missingDocuments(in: code, root: TestPaths.packageRoot) == [
                md("Sources/X.swift:1: docs/nowhere.MD")
            ])
        let note = RepositoryScan.TextFile(
            relativePath: "Sources/X.swift", text: "a\n/// as in \(Self.designNote.lowercased())\n")
        #expect(RepositoryScan.mentions(of: Self.designNote, in: note) == ["Sources/X.swift:2"])
    }
}

/// The contract pages stay true to the code they describe.
@Suite struct ContractDocumentTests {
    /// A file by its path from the package root.
    static func page(_ path: String) throws -> String {
        try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The backticked names in the first column of the Markdown table that follows `heading`.
    static func firstColumnNames(_ page: String, after heading: String) throws -> [String] {
        let start = try #require(page.range(of: heading)).upperBound
        var names: [String] = []
        var inTable = false
        for line in page[start...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") { inTable = true } else if inTable { break } else { continue }
            let cell = line.split(separator: "|", omittingEmptySubsequences: false)[1]
            names += cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map { String($0.element) }
        }
        return names
    }

    @Test func scenarioFormatExampleDecodes() throws {
        let page = try Self.page("docs/scenario-format.md")
        let start = try #require(page.range(of: "```json\n")).upperBound
        let end = try #require(page[start...].range(of: "```")).lowerBound
        let spec = try ScenarioSpec.decode(Array(page[start..<end].utf8), file: "docs/scenario-format.md")
        #expect(spec.name == "edge-loiter-100m")
        #expect(spec.faults.gaps.count == 1 && spec.expect.map(\.metric) == ["flutter.spurious"])
    }

    /// Every key the scenario decoder reads (`r.double("rate_hz")`, `r.choice("kind", [...])`) and
    /// every choice it offers is named in docs/scenario-format.md.
    @Test func everyKeyTheScenarioParserReadsIsDocumented() throws {
        let source = try Self.page("Sources/DriveSim/Scenario/ScenarioDecoding.swift")
        let page = try Self.page("docs/scenario-format.md")
        let accessor = try NSRegularExpression(
            pattern:
                #"\.(?:string|double|int|nonNegative|positive|probability|object|optionalObject|array|optionalArray|optionalDouble|optionalInt|optionalString|choice|value)\("([A-Za-z_0-9]+)""#
        )
        let choice = try NSRegularExpression(pattern: #"choice\("[^"]+", \[([^\]]*)\]"#)
        func captures(_ regex: NSRegularExpression, in text: String) -> [String] {
            regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
                Range(m.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        let keys = Set(captures(accessor, in: source))
        let offered = Set(
            captures(choice, in: source).flatMap {
                $0.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
                    .map { String($0.element) }
            })
        // The catalogue today: 71 keys, 16 choices. Far fewer means the decoder's reading calls changed shape: update the patterns.
        #expect(
            keys.count >= 60 && offered.count >= 14,
            "found \(keys.count) keys and \(offered.count) choices in the decoder")
        let missing = keys.union(offered).union(GeneratorKind.allCases.map(\.rawValue)).filter {
            !page.contains("`\($0)`")
        }.sorted()
        #expect(missing.isEmpty, "scenario keys or values not in docs/scenario-format.md: \(missing)")
    }

    @Test func sweepCSVColumnsAreTheDocumentedOnes() throws {
        let documented = try Self.firstColumnNames(try Self.page("docs/report-format.md"), after: "## `sweep.csv`")
        #expect(documented == SweepOutput.csvColumns)
    }
}

/// Reads the repository's text files and the document names in them.
enum RepositoryScan {
    struct TextFile {
        /// Path from the package root, `/`-separated.
        var relativePath: String
        var text: String
    }

    /// Folders that are build products or tool state, not repository content.
    static let skippedFolders: Set<String> = [".build", ".git", ".swiftpm", ".index-build"]
    /// Generated, git-ignored output folders (relative to the root).
    static let generatedFolders: Set<String> = ["reports/latest", "fuzz/out"]

    /// Markdown files `fencelab` writes (report and sweep folders): output, not documents.
    static let writtenMarkdown: Set<String> = Set(
        (ReportWriter.fileNames + SweepOutput.fileNames).filter { $0.hasSuffix(".md") })

    /// Every UTF-8 text file below `root`, skipping build products, hidden folders other than
    /// `.ci`, and generated output. Binary files (not UTF-8) are left out.
    static func textFiles(root: URL) throws -> [TextFile] {
        var out: [TextFile] = []
        var pending = [""]
        let fm = FileManager.default
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root.appendingPathComponent(relative)
            for name in try fm.contentsOfDirectory(atPath: folder.path).sorted() {
                let path = relative.isEmpty ? name : relative + "/" + name
                var isDirectory: ObjCBool = false
                guard fm.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory) else {
                    continue
                }
                if isDirectory.boolValue {
                    if skippedFolders.contains(name) || generatedFolders.contains(path) { continue }
                    if name.hasPrefix("."), name != ".ci" { continue }
                    pending.append(path)
                } else if let data = fm.contents(atPath: root.appendingPathComponent(path).path),
                    let text = String(data: data, encoding: .utf8)
                {
                    out.append(TextFile(relativePath: path, text: text))
                }
            }
        }
        return out
    }

    /// Document names: a name ending in `.md`, optionally behind folders (`docs/report-format.md`).
    static let documentName = try! NSRegularExpression(pattern: #"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)(?![\w-])"#)
    /// Markdown link targets `](target)` that look like a relative path (no scheme, no spaces or `|`).
    static let linkTarget = try! NSRegularExpression(pattern: #"\]\(([\w./-]+)(?:#[^)\s]*)?\)"#)

    /// `FILE:LINE: NAME` for every document name in `file`, and every relative link target of a
    /// Markdown `file`, that resolves neither against the file's folder nor against the package root.
    static func missingDocuments(in file: TextFile, root: URL) -> [String] {
        var problems: [String] = []
        let folder = (file.relativePath as NSString).deletingLastPathComponent
        let patterns = file.relativePath.hasSuffix(".md") ? [documentName, linkTarget] : [documentName]
        for (index, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(".md") || line.contains("](") {
            let text = String(line)
            var names: [String] = []
            for regex in patterns {
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    guard let range = Range(match.range(at: 1), in: text) else { continue }
                    let name = String(text[range])
                    if !names.contains(name) { names.append(name) }
                }
            }
            for name in names where !writtenMarkdown.contains(name) {
                let candidates = [
                    root.appendingPathComponent(folder).appendingPathComponent(name),
                    root.appendingPathComponent(name),
                ]
                if !candidates.contains(where: { FileManager.default.fileExists(atPath: $0.standardizedFileURL.path) })
                {
                    problems.append("\(file.relativePath):\(index + 1): \(name)")
                }
            }
        }
        return problems
    }

    /// `FILE:LINE` of every line that mentions `name` (case-insensitive).
    static func mentions(of name: String, in file: TextFile) -> [String] {
        let needle = name.lowercased()
        return file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            index, line in
            line.lowercased().contains(needle) ? "\(file.relativePath):\(index + 1)" : nil
        }
    }
}
