import DeviceLogKit

extension DeviceLogIngest {
    /// The `ingest` object of report.json replays and calibration.json (docs/report-format.md):
    /// what an import skipped, where first, and what it assumed; written only when it did either.
    package var json: JSONValue {
        .object(
            [
                ("skipped", .object(skippedCounts.map { ($0.reason.rawValue, .integer($0.count)) })),
                (
                    "firstSkippedLine",
                    .object(
                        skippedCounts.map { ($0.reason.rawValue, .integer(firstSkippedLine[$0.reason] ?? 0)) })
                ),
                (
                    "assumptions",
                    .array(
                        assumptions.map {
                            .object([
                                ("kind", .string($0.key)), ("fixes", .integer($0.fixes)),
                                ("detail", .string($0.detail)),
                            ])
                        })
                ),
            ]
                + (columns.map {
                    [
                        ("columns", .string($0.description)),
                        ("ignoredColumns", .array(ignoredColumns.map(JSONValue.string))),
                    ]
                } ?? [])
                + (providers.isEmpty
                    ? []
                    : [
                        (
                            "providers",
                            .object(providers.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })
                        )
                    ])
                + (selectedProviders.map { [("selectedProviders", .array($0.map(JSONValue.string)))] } ?? []))
    }
}
