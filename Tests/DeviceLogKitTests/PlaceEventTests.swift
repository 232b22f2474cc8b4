import DeviceLogKit
import Testing

/// The `place` an event names (CSV column, JSON Lines key, `--columns place=`): read where
/// given, nil where not, refused where it means nothing.
@Suite struct PlaceEventTests {
    @Test func csvAndJSONLinesEventsCarryTheirPlace() throws {
        let csv = """
            timestamp,latitude,longitude,horizontal_accuracy,event,place
            100,52.52,13.40,5,,
            101,,,,enter,bakery
            102,52.52,13.40,5,exit,bookshop
            103,,,,exit,
            """
        let log = try DeviceLogImporter.parse(bytes: Array(csv.utf8), file: "p.csv", format: .csv)
        #expect(log.fixes.count == 2)
        #expect(log.events.map(\.place) == ["bakery", "bookshop", nil])
        #expect(log.events.map(\.line) == [3, 4, 5])
        let jsonl = """
            {"timestamp":100,"latitude":52.52,"longitude":13.4,"horizontal_accuracy":5}
            {"timestamp":101,"event":"enter","place":"bakery"}
            {"timestamp":102,"event":"exit"}
            """
        let j = try DeviceLogImporter.parse(bytes: Array(jsonl.utf8), file: "p.jsonl", format: .jsonl)
        #expect(j.events.map(\.place) == ["bakery", nil])
    }

    @Test func mappedPlaceColumn() throws {
        let csv = "t,la,lo,acc,ev,where\n100,52.52,13.4,5,enter,gym\n"
        guard case .success(let map) = DeviceLogColumns.parse("time=t,lat=la,lon=lo,accuracy=acc,event=ev,place=where")
        else {
            Issue.record("--columns with place= refused")
            return
        }
        let log = try DeviceLogImporter.parse(
            bytes: Array(csv.utf8), file: "m.csv", format: .csv, options: DeviceLogReadOptions(columns: map))
        #expect(log.events.map(\.place) == ["gym"])
    }

    @Test func aPlaceWithoutAnEventOrOfAnotherTypeIsRefused() {
        let cases: [(String, DeviceLogFormat, String)] = [
            (
                "timestamp,latitude,longitude,horizontal_accuracy,event,place\n100,52.52,13.4,5,,bakery\n", .csv,
                "p:2: event: value is missing"
            ),
            (
                "{\"timestamp\":101,\"event\":\"enter\",\"place\":7}\n", .jsonl,
                "p:1: malformed JSON: place: not a string"
            ),
        ]
        for (text, format, message) in cases {
            #expect {
                _ = try DeviceLogImporter.parse(bytes: Array(text.utf8), file: "p", format: format)
            } throws: { error in
                (error as? DeviceLogError)?.description == message
            }
        }
    }
}
