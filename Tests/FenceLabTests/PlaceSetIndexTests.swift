import DriveSim
import Foundation
import GeoPolicy
import Testing
import _TestSupport

@testable import FenceLab

/// The indexed place-set stage against the scan of every place it replaces: the same true and
/// observed visits per place on generated drives (the shipped shopping street, a set across the
/// date line and a set near the pole).
@Suite struct PlaceSetIndexTests {
    static func drive(_ spec: ScenarioSpec, replicate: Int) throws -> ([GeneratedSample], [Fix], [Double]) {
        let samples = try ScenarioGenerator.generate(spec: spec, replicate: replicate).samples
        let delivered = samples.filter { $0.fix != nil }
        return (samples, delivered.map { $0.fix! }, delivered.map(\.time_s))
    }

    static func truthSlots(_ samples: [GeneratedSample]) -> ([Double], [Coordinate]) {
        var time: [Double] = []
        var truth: [Coordinate] = []
        var last = -1
        for s in samples where s.sampleIndex > last {
            last = s.sampleIndex
            time.append(s.time_s)
            truth.append(s.truth)
        }
        return (time, truth)
    }

    /// The shipped example with every place registered, and copies moved across the date line and
    /// next to the north pole (the drive is generated where the places are).
    static func specs() throws -> [ScenarioSpec] {
        let url = TestPaths.packageRoot.appendingPathComponent("scenarios/places/shopping-street.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [ScenarioSpec] = []
        for (from, to) in [
            ("[52.5, 13.4]", "[52.5, 13.4]"), ("[52.5, 13.4]", "[-16.8, 179.995]"), ("[52.5, 13.4]", "[89.97, 10]"),
        ] {
            let moved = text.replacingOccurrences(of: from, with: to).replacingOccurrences(
                of: "\"monitoring\": \"nearest:20+refresh:150\"", with: "\"monitoring\": \"all\"")
            var spec = try ScenarioSpec.decode(Array(moved.utf8), file: "shopping-street.json")
            spec.sampling.duration_s = 1800
            out.append(spec)
        }
        return out
    }

    @Test(arguments: 0..<3)
    func indexedVisitsEqualTheScan(_ which: Int) throws {
        let spec = try Self.specs()[which]
        let set = try #require(spec.places)
        #expect(set.monitoring == .all && set.places.count == 200)
        let (samples, fixes, now) = try Self.drive(spec, replicate: 1)
        let (time, truth) = Self.truthSlots(samples)
        let end_s = spec.sampling.duration_s
        let indexedTruth = PlaceSetTruth.trueVisits(
            set: set, index: PlaceSetTruth.index(set), time_s: time, truth: truth, end_s: end_s)
        let scannedTruth = set.places.indices.map {
            Visits.trueVisits(
                time_s: time, truth: truth, center: set.places[$0].center, place: set.placeSpec($0), end_s: end_s)
        }
        #expect(indexedTruth == scannedTruth)
        #expect(scannedTruth.filter { !$0.isEmpty }.count >= 4)
        for input in ["raw", "kalman"] {
            var s = spec
            if input == "kalman" {
                s.fence.rule.input = .kalman
                s.fence.rule.confirm_n = 2
            }
            let settings = EvaluationSettings()
            let indexed = try PlaceSetEvaluation.indexed(
                set: set, spec: s, fixes: fixes, now_s: now, settings: settings, end_s: end_s)
            let scanned = try PlaceSetEvaluation.scanned(
                set: set, spec: s, fixes: fixes, now_s: now, settings: settings, end_s: end_s, replicate: 1)
            #expect(indexed == scanned, "\(input)")
            #expect(scanned.filter { !$0.isEmpty }.count >= 4)
        }
    }
}
