import Foundation

/// XML Schema validation with `xmllint` (Debian: libxml2-utils), a test tool only.
///
/// Tests that need it are enabled when `xmllint` is on PATH, or when `FENCELAB_REQUIRE_XMLLINT=1`
/// (`.ci/run` sets it and installs the tool): then a missing `xmllint` fails the test instead of
/// skipping it, so CI can never pass without validating.
public enum XMLSchema {
    /// `xmllint` on PATH, or nil.
    public static var xmllint: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("xmllint")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Whether schema tests run (see the type's documentation).
    public static var testsEnabled: Bool {
        xmllint != nil || ProcessInfo.processInfo.environment["FENCELAB_REQUIRE_XMLLINT"] == "1"
    }

    /// A schema committed under `Tests/Schemas/`.
    public static func schema(_ name: String) -> URL {
        TestPaths.packageRoot.appendingPathComponent("Tests/Schemas").appendingPathComponent(name)
    }

    /// Validates `xml` against `schema`; status 0 when valid, stderr names each violation.
    public static func validate(_ xml: String, schema: URL) throws -> ProcessResult {
        guard let tool = xmllint else {
            return ProcessResult(
                status: 127, stdout: "", stderr: "xmllint not found on PATH (apt-get install libxml2-utils)")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fencelab-xsd-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try runProcess(tool, ["--noout", "--schema", schema.path, file.path])
    }
}
