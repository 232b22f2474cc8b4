import GeoPolicy
import Testing

@Suite struct NotificationPolicyTests {
    typealias Change = (time_s: Double, inside: Bool)

    private func notes(_ spec: String, _ changes: [Change], end_s: Double = 10_000) throws -> [FenceNotification] {
        try NotificationPolicy.parse(spec).notifications(of: changes, end_s: end_s)
    }

    private func entry(_ t: Double) -> FenceNotification { FenceNotification(time_s: t, kind: .entry) }
    private func exit(_ t: Double) -> FenceNotification { FenceNotification(time_s: t, kind: .exit) }
    private func dwell(_ t: Double) -> FenceNotification { FenceNotification(time_s: t, kind: .dwell) }

    @Test(arguments: [
        ("none", "none", ""),
        ("dwell:300", "dwell:300", "+dwell300"),
        ("cooldown:600", "cooldown:600", "+cooldown600"),
        ("dwell:300+cooldown:600", "dwell:300+cooldown:600", "+dwell300+cooldown600"),
        ("cooldown:600+dwell:300", "dwell:300+cooldown:600", "+dwell300+cooldown600"),
        ("dwell:2.5", "dwell:2.5", "+dwell2.5"),
    ])
    func parsesAndRoundTrips(text: String, canonical: String, suffix: String) throws {
        let p = try NotificationPolicy.parse(text)
        #expect(p.description == canonical)
        #expect(p.versionSuffix == suffix)
        #expect(try NotificationPolicy.parse(p.description) == p)
    }

    @Test(arguments: [
        ("dwell:0", "dwell T"), ("dwell:-5", "dwell T"), ("cooldown:inf", "cooldown T"),
        ("dwell:nan", "dwell T"), ("dwell:x", "'dwell:x'"), ("dwell", "expected dwell:T"),
        ("dwell:1:2", "expected dwell:T"), ("linger:5", "'linger:5'"), ("", "unknown part ''"),
        ("none+dwell:5", "'none'"), ("dwell:5+dwell:6", "at most one dwell"),
        ("cooldown:5+cooldown:6", "at most one cooldown"), ("dwell:5+", "unknown part ''"),
    ])
    func refusesNamingThePart(text: String, named: String) {
        do {
            _ = try NotificationPolicy.parse(text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.description.contains(named), "\(error)")
            #expect(error.description.hasPrefix("notification policy '"))
        }
    }

    @Test func initRefusesNonPositive() {
        #expect(throws: NotificationPolicyError.self) { try NotificationPolicy(dwell_s: 0) }
        #expect(throws: NotificationPolicyError.self) { try NotificationPolicy(cooldown_s: -.infinity) }
        #expect(throws: Never.self) { try NotificationPolicy(dwell_s: 1, cooldown_s: 1) }
    }

    /// Without a policy the notifications are the rule's transitions plus the first inside determination.
    @Test func noneFollowsTheRule() throws {
        #expect(
            try notes("none", [(0, false), (10, true), (20, false), (30, true)])
                == [entry(10), exit(20), entry(30)])
        #expect(try notes("none", [(5, true), (9, false)]) == [entry(5), exit(9)])
        // A repeated state is not a change.
        #expect(try notes("none", [(5, true), (7, true), (9, false), (11, false)]) == [entry(5), exit(9)])
    }

    @Test func dwellFiresAtEntryPlusTWhenStillInside() throws {
        // Stay 100…500: dwell at 400. Stay 600…800 (200 s < 300): none. Stay 900…1200 exactly 300: fires.
        let changes: [Change] = [
            (0, false), (100, true), (500, false), (600, true), (800, false), (900, true), (1200, false),
        ]
        #expect(
            try notes("dwell:300", changes)
                == [entry(100), dwell(400), exit(500), entry(600), exit(800), entry(900), dwell(1200), exit(1200)])
        // An open stay dwells only when entry + T is within the drive.
        #expect(try notes("dwell:300", [(100, true)], end_s: 399) == [entry(100)])
        #expect(try notes("dwell:300", [(100, true)], end_s: 400) == [entry(100), dwell(400)])
        // Inside from the first determination: a dwell too, once per stay.
        #expect(try notes("dwell:60", [(0, true)], end_s: 1000) == [entry(0), dwell(60)])
    }

    @Test func cooldownSuppressesAReentryWithinTAndNotAfter() throws {
        // Exit at 100; re-entry at 699.9 (< 600 s later) is quiet, and its exit too.
        #expect(
            try notes("cooldown:600", [(0, true), (100, false), (699.9, true), (750, false)])
                == [entry(0), exit(100)])
        // Re-entry exactly 600 s after the exit, and after: notified.
        #expect(
            try notes("cooldown:600", [(0, true), (100, false), (700, true), (750, false)])
                == [entry(0), exit(100), entry(700), exit(750)])
        // The cooldown runs from the last exit, notified or not: 100 → quiet 300…400 → 900 is < 600 after 400.
        #expect(
            try notes(
                "cooldown:600",
                [(0, true), (100, false), (300, true), (400, false), (900, true), (1000, false), (1600, true)])
                == [entry(0), exit(100), entry(1600)])
        // A first determination of outside is no exit: the first entry is always notified.
        #expect(try notes("cooldown:600", [(0, false), (10, true)]) == [entry(10)])
    }

    @Test func cooldownSilencesTheDwellOfAQuietStay() throws {
        #expect(
            try notes(
                "dwell:60+cooldown:600", [(0, true), (100, false), (200, true), (400, false), (1000, true)], end_s: 2000
            )
                == [entry(0), dwell(60), exit(100), entry(1000), dwell(1060)])
    }

    /// The tracker is what `notifications(of:)` runs; fed by hand it gives the same list.
    @Test func trackerMatchesTheSequenceFunction() throws {
        let policy = try NotificationPolicy.parse("dwell:30+cooldown:50")
        var x: UInt64 = 12345
        var changes: [Change] = []
        var t = 0.0
        var inside = false
        for _ in 0..<2000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            t += Double(x >> 54)  // 0 ... 1023 s
            inside.toggle()
            changes.append((t, inside))
        }
        var tracker = NotificationTracker(policy: policy)
        var byHand: [FenceNotification] = []
        for c in changes { tracker.change(time_s: c.time_s, inside: c.inside, into: &byHand) }
        tracker.finish(end_s: t + 100, into: &byHand)
        let all = policy.notifications(of: changes, end_s: t + 100)
        #expect(all == byHand)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.time_s <= $1.time_s })
        #expect(all.contains { $0.kind == .dwell } && all.count < 2 * changes.count)
    }
}
