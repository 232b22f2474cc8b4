import FenceLab
import _FenceLabSupport

/// One element of a scenario's `results` in sweep.json written straight as bytes: the same bytes
/// as `SweepOutput.resultJSON(c, frontier:).write(into:indent:)` (the `JSONValue` tree of the cell, its
/// estimates `JSONReport.estimate`), without building the tree. A sweep.json has one per grid
/// point and scenario, each about 40 nodes, so the tree and its writer were a large share of a
/// sweep's output time. `SweepCellJSONTests` compares both on cells with and without the
/// optional figures.
///
/// The layout rules of `JSONValue.write` that apply: an object of more than four members, or
/// one holding an estimate (an object written on one line), spans lines, one member per line at
/// two spaces per level; an object of at most four members that are all `null` stays on one
/// line (`{"p95": null}`).
struct SweepCellJSON {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(4096) }

    /// Writes the cell's object at `indent` levels (its first line is not padded, as
    /// `JSONValue.write` writes a value after its key or its array padding).
    ///
    /// `padded`: the line starts with the padding of `indent` levels (an array element);
    /// then the element ends in `,\n`, or `\n` when it is the `last`.
    mutating func write(_ c: SweepCell, frontier: Bool, indent: Int, padded: Bool = false, last: Bool = true) {
        bytes.removeAll(keepingCapacity: true)
        if padded { pad(indent) }
        let i = indent + 1
        open()
        key("point", i)
        DecimalDigits.append(c.point, to: &bytes)
        next()
        member("spurious", c.spurious, i)
        member("missed", c.missed, i)
        member("flaps", c.flaps, i)
        member("transitions", c.transitions, i)
        member("truthTransitions", c.truthTransitions, i)
        key("latency_s", i)
        small([("median", c.latencyMedian_s), ("p95", c.latencyP95_s)], i)
        next()
        key("frontier", i)
        put(frontier ? "true" : "false")
        next()
        key("visits", i)
        visits(c.visits, i)
        next()
        key("filterRMSE_m", i)
        optional(c.filterRMSE_m)
        next()
        key("cost", i)
        open()
        member("fixesPerHour", c.cost.fixesPerHour, i + 1)
        key("wakeupsPerHour", i + 1)
        estimate(c.cost.wakeupsPerHour)
        close(i)
        next()
        key("notifications", i)
        if let n = c.notifications {
            open()
            key("entriesPerTrueVisit", i + 1)
            optional(n.entriesPerTrueVisit)
            next()
            member("unwantedPerHour", n.unwantedPerHour, i + 1)
            member("falseDwellsPerHour", n.falseDwellsPerHour, i + 1)
            key("dwellRecall", i + 1)
            optional(n.dwellRecall)
            next()
            key("dwellLatency_s", i + 1)
            small([("p95", n.dwellLatencyP95_s)], i + 1)
            close(i)
        } else {
            put("null")
        }
        close(indent)
        if padded { put(last ? "\n" : ",\n") }
    }

    private mutating func visits(_ v: SweepVisitCell, _ indent: Int) {
        let i = indent + 1
        open()
        member("trueVisits", v.trueVisits, i)
        member("matchedVisits", v.matchedVisits, i)
        key("recall", i)
        optional(v.recall)
        next()
        member("falseVisits", v.falseVisits, i)
        member("fragments", v.fragments, i)
        member("falsePerHour", v.falsePerHour, i)
        member("fragmentsPerHour", v.fragmentsPerHour, i)
        member("earlyEntries", v.earlyEntries, i)
        key("entryLatency_s", i)
        small([("p95", v.entryLatencyP95_s), ("p95EarlyAsZero", v.lateEntryP95_s)], i)
        next()
        key("exitLatency_s", i)
        small([("p95", v.exitLatencyP95_s)], i)
        next()
        key("trueExits", i)
        estimate(v.trueExits)
        close(indent)
    }

    // MARK: Pieces

    @inline(__always)
    private mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `{` and the line break after it.
    private mutating func open() { put("{\n") }

    /// The line break, the padding of `indent` levels and `}`.
    private mutating func close(_ indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        pad(indent)
        bytes.append(UInt8(ascii: "}"))
    }

    /// `,` and the line break between members.
    private mutating func next() { put(",\n") }

    private mutating func pad(_ levels: Int) {
        for _ in 0..<levels {
            bytes.append(UInt8(ascii: " "))
            bytes.append(UInt8(ascii: " "))
        }
    }

    /// The padded `"key": ` of a member of a multi-line object.
    private mutating func key(_ name: StaticString, _ indent: Int) {
        pad(indent)
        quoted(name)
        put(": ")
    }

    private mutating func quoted(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        put(name)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A member holding an estimate, followed by `,` (never the last member).
    private mutating func member(_ name: StaticString, _ e: Estimate, _ indent: Int) {
        key(name, indent)
        estimate(e)
        next()
    }

    private mutating func optional(_ e: Estimate?) {
        if let e { estimate(e) } else { put("null") }
    }

    /// `JSONReport.estimate`'s one line.
    private mutating func estimate(_ e: Estimate) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONReport.estimateCapacity_bytes) { buffer in
            var at = 0
            JSONReport.writeEstimate(e, into: buffer, at: &at)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<at]))
        }
    }

    /// An object of at most four optional estimates: on one line when all are absent (`null` is
    /// flat), else one member per line.
    private mutating func small(_ members: [(StaticString, Estimate?)], _ indent: Int) {
        if members.allSatisfy({ $0.1 == nil }) {
            bytes.append(UInt8(ascii: "{"))
            for (k, (name, _)) in members.enumerated() {
                if k > 0 { put(", ") }
                quoted(name)
                put(": null")
            }
            bytes.append(UInt8(ascii: "}"))
            return
        }
        open()
        for (k, (name, e)) in members.enumerated() {
            if k > 0 { next() }
            key(name, indent + 1)
            optional(e)
        }
        close(indent)
    }
}
