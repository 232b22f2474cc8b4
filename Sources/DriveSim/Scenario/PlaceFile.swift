import GeoPolicy

extension PlaceSetSpec {
    /// Reads a place file as the scenario key `places.file` does: `*.csv`
    /// (`name,lat,lon,radius_m[,enter_m,exit_m][,weight]`) or `*.geojson` / `*.json` (Points with
    /// `name` and `radius_m` properties), at most `maxPlaces` places with unique names, radii finite
    /// and > 0, a place's own `enter_m`/`exit_m` suiting `rule`'s kind. Replay reads `--places`
    /// through it, so both accept the same files.
    /// - Throws: `ScenarioError` naming the file, line and key.
    public static func read(file path: String, rule: FenceRuleSpec) throws(ScenarioError) -> [NamedPlace] {
        try ScenarioSpec.readPlaceFile(path, rule: rule).0
    }
}
