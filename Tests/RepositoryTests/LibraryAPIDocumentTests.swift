import Foundation
import Testing
import _TestSupport

/// docs/library.md lists exactly the `public` declarations of the `FenceLab` module: a type as
/// `Type`, a member as `Type.member` (overloads share one row), in the first column of its table.
@Suite struct LibraryAPIDocumentTests {
    /// `Type` and `Type.member` for every `public` declaration in `text` (one source file):
    /// members are attributed to the last type declared at the start of a line.
    static func publicDeclarations(in text: String) -> Set<String> {
        var names: Set<String> = []
        var currentType: String?
        let typeDecl = try! NSRegularExpression(
            pattern: #"^(public |package |)(?:final |indirect )*(?:struct|enum|class|protocol|actor|extension) (\w+)"#)
        let memberDecl = try! NSRegularExpression(
            pattern:
                #"^\s+(?:@\w+ )*public (?:static |final |mutating |nonisolated )*(?:func|var|let|init|subscript)\b ?(\w*)"#
        )
        for line in text.split(separator: "\n").map(String.init) {
            let range = NSRange(line.startIndex..., in: line)
            if let m = typeDecl.firstMatch(in: line, range: range), let name = Range(m.range(at: 2), in: line) {
                currentType = String(line[name])
                if line.hasPrefix("public ") { names.insert(String(line[name])) }
            } else if let m = memberDecl.firstMatch(in: line, range: range), let type = currentType {
                let member = Range(m.range(at: 1), in: line).map { String(line[$0]) } ?? ""
                names.insert(type + "." + (member.isEmpty ? (line.contains(" init") ? "init" : "subscript") : member))
            }
        }
        return names
    }

    /// The backticked first-column entries of the table under `## The public API of `FenceLab``.
    static func documentedDeclarations(in page: String) throws -> Set<String> {
        let start = try #require(page.range(of: "## The public API of `FenceLab`")).upperBound
        var names: Set<String> = []
        var inTable = false
        for line in page[start...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") { inTable = true } else if inTable { break } else { continue }
            let cell = line.split(separator: "|", omittingEmptySubsequences: false)[1]
                .trimmingCharacters(in: .whitespaces)
            if cell.hasPrefix("`"), cell.hasSuffix("`") { names.insert(String(cell.dropFirst().dropLast())) }
        }
        return names
    }

    @Test func parserFindsTypesMembersAndSkipsPackageOnes() {
        let text = """
            public struct A: Sendable {
                public let x_m: Double
                package var hidden: Int
                public init(x_m: Double) { self.x_m = x_m }
                @discardableResult public static func make() -> A { A(x_m: 0) }
            }
            package enum B { public static let y = 1 }
            extension A {
                public func run<R>(_ r: R) {}
            }
            """
        #expect(Self.publicDeclarations(in: text) == ["A", "A.x_m", "A.init", "A.make", "A.run"])
    }

    @Test func theLibraryPageListsExactlyThePublicAPI() throws {
        let root = TestPaths.packageRoot
        let folder = root.appendingPathComponent("Sources/FenceLab")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var declared: Set<String> = []
        for file in files {
            declared.formUnion(
                Self.publicDeclarations(
                    in: try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)))
        }
        let page = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let documented = try Self.documentedDeclarations(in: page)
        #expect(declared.count >= 30, "found only \(declared.count) public declarations")
        #expect(
            declared.subtracting(documented).isEmpty,
            "public but not in docs/library.md: \(declared.subtracting(documented).sorted())")
        #expect(
            documented.subtracting(declared).isEmpty,
            "in docs/library.md but not public: \(documented.subtracting(declared).sorted())")
    }
}
