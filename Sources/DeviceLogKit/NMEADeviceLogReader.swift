/// Reads NMEA 0183 logs (`.nmea`): `GGA`, `RMC` and, when present, `GST` sentences of any talker
/// (`$GP…`, `$GN…`, `$GL…`) become fixes; one fix per epoch (sentences sharing a UTC time).
///
/// Strict like the other readers: every non-blank line must be a sentence `$ADDRESS,…*hh` with a
/// matching checksum (XOR of the bytes between `$` and `*`); a GGA/RMC/GST with too few fields, a
/// malformed time, date, coordinate or number is an error naming the line. Other sentence types
/// (GSA, GSV, VTG, GLL, ZDA, proprietary `$P…`) are valid NMEA and ignored.
///
/// Per epoch: position from GGA (else RMC); date from the epoch's RMC, else carried from the
/// previous epoch (midnight rollover when the time of day goes back by more than 12 h); speed
/// (knots → m/s) and course from RMC. Accuracy: GST's √(σ_lat² + σ_lon²) (a DRMS, metres) when the
/// epoch has a GST, else GGA HDOP × `GPXAccuracy.uere_m` (5 m, an assumption, see
/// docs/device-logs.md). A position with GGA quality 0 or RMC status V is kept with accuracy NaN
/// (the engine rejects it with its reason); a valid position without HDOP or GST is an error; an
/// epoch without a position (no fix yet) is no fix. NMEA carries no geofence events.
enum NMEADeviceLogReader {
    /// What one epoch has collected so far.
    struct Epoch {
        var timeText = ""
        var secondOfDay = 0.0
        var line = 0
        var latitude: Double?, longitude: Double?
        var rmcLatitude: Double?, rmcLongitude: Double?
        var hdop: Double?
        var gstSigma_m: Double?
        var invalid = false
        var date: Int?  // days since 1970-01-01
        var speed_mps: Double?, course_deg: Double?
    }

    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        var epoch: Epoch?
        var day: Int?
        var lastSecondOfDay: Double?
        var lastLine = 0
        var sawSentence = false
        while let line = try lines.next({ (bytes, line) throws(DeviceLogProblemAtLine) -> Int in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw DeviceLogProblemAtLine(line: line, problem: .invalidUTF8)
            }
            let trimmed = text.trimmingASCIISpaces
            if trimmed.isEmpty { return line }
            sawSentence = true
            let fields = try sentenceFields(String(trimmed), line: line)
            let address = fields[0]
            guard address.count == 5, !address.hasPrefix("P") else { return line }  // proprietary or unknown shape
            let type = address.suffix(3)
            guard type == "GGA" || type == "RMC" || type == "GST" else { return line }
            let time = try timeOfDay(fields.count > 1 ? fields[1] : "", line: line)
            if let e = epoch, e.timeText != fields[1] {
                try flush(e, day: &day, lastSecondOfDay: &lastSecondOfDay, into: &builder)
                epoch = nil
            }
            var e = epoch ?? Epoch(timeText: String(fields[1]), secondOfDay: time, line: line)
            switch type {
            case "GGA": try gga(fields, line: line, into: &e)
            case "RMC": try rmc(fields, line: line, into: &e)
            default: try gst(fields, line: line, into: &e)
            }
            epoch = e
            return line
        }) {
            lastLine = line
        }
        if let e = epoch { try flush(e, day: &day, lastSecondOfDay: &lastSecondOfDay, into: &builder) }
        guard sawSentence else { throw DeviceLogProblemAtLine(line: max(1, lastLine), problem: .emptyFile) }
        if builder.isEmpty { throw DeviceLogProblemAtLine(line: lastLine, problem: .noData) }
    }

    /// Checks `$…*hh` and the checksum; returns the comma-separated fields (address first).
    static func sentenceFields(_ s: String, line: Int) throws(DeviceLogProblemAtLine) -> [Substring] {
        func fail(_ m: String) -> DeviceLogProblemAtLine { DeviceLogProblemAtLine(line: line, problem: .nmea(m)) }
        guard s.hasPrefix("$") else { throw fail("a sentence must start with '$', got '\(DeviceLogLexical.shown(s))'") }
        guard let star = s.lastIndex(of: "*") else { throw fail("no checksum ('*hh' at the end)") }
        let body = s[s.index(after: s.startIndex)..<star]
        let given = s[s.index(after: star)...]
        guard given.count == 2, given.allSatisfy(\.isHexDigit) else {
            throw fail("checksum must be two hex digits, got '\(DeviceLogLexical.shown(given))'")
        }
        let computed = NMEASentence.checksum(body)
        guard given.uppercased() == computed else {
            throw fail("checksum \(given) does not match the sentence (computed \(computed))")
        }
        guard body.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw fail("sentence holds non-printable or non-ASCII characters")
        }
        return body.split(separator: ",", omittingEmptySubsequences: false)
    }

    static func gga(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) {
        try require(f, 9, "GGA", line: line)
        if let (lat, lon) = try position(f[2], f[3], f[4], f[5], line: line) {
            e.latitude = lat
            e.longitude = lon
        }
        let quality = try number(f[6], "GGA fix quality", line: line)
        if quality == 0 { e.invalid = true }
        if let h = try number(f[8], "GGA HDOP", line: line) { e.hdop = h }
    }

    static func rmc(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) {
        try require(f, 10, "RMC", line: line)
        switch f[2] {
        case "A": break
        case "V": e.invalid = true
        default:
            throw DeviceLogProblemAtLine(
                line: line, problem: .nmea("RMC status must be A or V, got '\(DeviceLogLexical.shown(f[2]))'"))
        }
        if let (lat, lon) = try position(f[3], f[4], f[5], f[6], line: line) {
            e.rmcLatitude = lat
            e.rmcLongitude = lon
        }
        if let knots = try number(f[7], "RMC speed", line: line) { e.speed_mps = knots * NMEASentence.knot_mps }
        if let c = try number(f[8], "RMC course", line: line) { e.course_deg = c }
        e.date = try date(f[9], line: line)
    }

    static func gst(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) {
        try require(f, 8, "GST", line: line)
        if let sLat = try number(f[6], "GST latitude sigma", line: line),
            let sLon = try number(f[7], "GST longitude sigma", line: line)
        {
            e.gstSigma_m = (sLat * sLat + sLon * sLon).squareRoot()
        }
    }

    static func flush(
        _ e: Epoch, day: inout Int?, lastSecondOfDay: inout Double?,
        into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        if let d = e.date {
            day = d
        } else if let d = day, let last = lastSecondOfDay, e.secondOfDay < last - 43_200 {
            day = d + 1  // past midnight without an RMC
        }
        lastSecondOfDay = e.secondOfDay
        // no fix yet
        guard let lat = e.latitude ?? e.rmcLatitude, let lon = e.longitude ?? e.rmcLongitude else { return }
        guard let d = day else {
            throw DeviceLogProblemAtLine(
                line: e.line,
                problem: .nmea("no date: an RMC sentence must come in or before the first epoch with a position"))
        }
        let accuracy: Double
        if e.invalid {
            accuracy = .nan
        } else if let s = e.gstSigma_m {
            accuracy = s
        } else if let h = e.hdop {
            accuracy = h * GPXAccuracy.uere_m
        } else {
            throw DeviceLogProblemAtLine(
                line: e.line, problem: .nmea("position without accuracy: neither GGA HDOP nor GST"))
        }
        try builder.add(
            line: e.line, timestamp_s: Double(d) * 86_400 + e.secondOfDay, latitude: lat, longitude: lon,
            accuracy_m: accuracy, speed_mps: e.speed_mps, course_deg: e.course_deg, event: nil)
    }

    static func require(_ f: [Substring], _ count: Int, _ type: String, line: Int) throws(DeviceLogProblemAtLine) {
        guard f.count >= count else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .nmea("\(type) needs at least \(count - 1) fields, got \(f.count - 1)"))
        }
    }

    /// An optional plain decimal (empty: nil).
    static func number(_ s: Substring, _ what: String, line: Int) throws(DeviceLogProblemAtLine) -> Double? {
        if s.isEmpty { return nil }
        guard s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }), let v = Double(s),
            v.isFinite
        else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .notANumber(column: what, value: DeviceLogLexical.shown(s)))
        }
        return v
    }

    /// `hhmmss[.sss]` → seconds of the day.
    static func timeOfDay(_ s: Substring, line: Int) throws(DeviceLogProblemAtLine) -> Double {
        let b = Array(s.utf8)
        func digits(_ i: Int) -> Int? {
            guard i + 1 < b.count, (48...57).contains(b[i]), (48...57).contains(b[i + 1]) else { return nil }
            return Int(b[i] - 48) * 10 + Int(b[i + 1] - 48)
        }
        guard let h = digits(0), let m = digits(2), let sec = digits(4), h < 24, m < 60, sec < 60,
            b.count == 6 || (b.count > 7 && b[6] == 0x2E && b[7...].allSatisfy { (48...57).contains($0) })
        else {
            throw DeviceLogProblemAtLine(
                line: line,
                problem: .badTimestamp(value: DeviceLogLexical.shown(s), reason: "NMEA time must be hhmmss[.ss]"))
        }
        let fraction = b.count > 7 ? (Double("0" + String(s.dropFirst(6))) ?? 0) : 0
        return Double(h * 3600 + m * 60 + sec) + fraction
    }

    /// `ddmmyy` → days since 1970-01-01; yy 80–99 is 19yy, 00–79 is 20yy.
    static func date(_ s: Substring, line: Int) throws(DeviceLogProblemAtLine) -> Int {
        let b = Array(s.utf8)
        guard b.count == 6, b.allSatisfy({ (48...57).contains($0) }) else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .badTimestamp(value: DeviceLogLexical.shown(s), reason: "RMC date must be ddmmyy"))
        }
        let d = Int(b[0] - 48) * 10 + Int(b[1] - 48)
        let m = Int(b[2] - 48) * 10 + Int(b[3] - 48)
        let yy = Int(b[4] - 48) * 10 + Int(b[5] - 48)
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        let monthDays = [
            31, (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
            31,
        ]
        guard (1...12).contains(m), d >= 1, d <= monthDays[m - 1] else {
            throw DeviceLogProblemAtLine(
                line: line, problem: .badTimestamp(value: DeviceLogLexical.shown(s), reason: "date field out of range"))
        }
        return DeviceLogLexical.daysFromCivil(year: year, month: m, day: d)
    }

    /// `ddmm.mmmm,N,dddmm.mmmm,E` → degrees; all four empty: nil.
    static func position(
        _ lat: Substring, _ ns: Substring, _ lon: Substring, _ ew: Substring,
        line: Int
    ) throws(DeviceLogProblemAtLine) -> (Double, Double)? {
        if lat.isEmpty, ns.isEmpty, lon.isEmpty, ew.isEmpty { return nil }
        let la = try angle(lat, degreeDigits: 2, hemisphere: ns, positive: "N", negative: "S", line: line)
        let lo = try angle(lon, degreeDigits: 3, hemisphere: ew, positive: "E", negative: "W", line: line)
        return (la, lo)
    }

    static func angle(
        _ s: Substring, degreeDigits: Int, hemisphere: Substring, positive: Substring, negative: Substring,
        line: Int
    ) throws(DeviceLogProblemAtLine) -> Double {
        let what = degreeDigits == 2 ? "latitude" : "longitude"
        func fail() -> DeviceLogProblemAtLine {
            DeviceLogProblemAtLine(
                line: line, problem: .notANumber(column: what, value: DeviceLogLexical.shown(s + "," + hemisphere)))
        }
        let b = Array(s.utf8)
        guard b.count >= degreeDigits + 2, b[0..<(degreeDigits + 2)].allSatisfy({ (48...57).contains($0) }),
            hemisphere == positive || hemisphere == negative,
            let degrees = Double(s.prefix(degreeDigits)), let minutes = Double(s.dropFirst(degreeDigits)),
            b.dropFirst(degreeDigits + 2).allSatisfy({ (48...57).contains($0) || $0 == 0x2E }),
            minutes < 60
        else { throw fail() }
        let value = degrees + minutes / 60
        return hemisphere == negative ? -value : value
    }
}

extension String {
    /// The text without leading/trailing ASCII spaces and tabs.
    fileprivate var trimmingASCIISpaces: Substring {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
