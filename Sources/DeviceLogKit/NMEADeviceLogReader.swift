/// Reads NMEA 0183 logs as receivers write them: `GGA`, `RMC`, `GLL`, `GST`, `GSA` and `VTG`
/// sentences of any talker (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `QZ`, …) become fixes, one per epoch
/// (consecutive sentences sharing a UTC time; GSA and VTG, which carry no time, belong to the epoch
/// they follow).
///
/// Ingest policy (docs/device-logs.md): a `#` comment line and a GGA/RMC/GLL/GST without a time or
/// position (no fix yet) are skipped and counted, and so are the GST/GSA/VTG of an epoch without a
/// position; a damaged line (checksum mismatch, a sentence cut off before its `*hh`, a line that is
/// not a sentence) is skipped and counted, or refused with `DeviceLogReadOptions.strict`. A sentence
/// that passes its checksum but has too few fields or a malformed time, date, coordinate or number
/// is an error naming the line and the field. Every other well-formed sentence is skipped and
/// counted by why: `proprietarySentence` (`$P…`), `otherSentence` (GSV, ZDA, TXT, …),
/// `sentenceWithoutEpoch` (a GSA or VTG before any timed sentence).
///
/// Per epoch: position from GGA (else RMC, else GLL); speed and course from RMC, else VTG. Date:
/// the epoch's RMC; else (GnssLogger) the UTC day of the wrapping line's time nearest the epoch's
/// time; else carried from the previous epoch (midnight rollover when the time of day goes back by
/// more than 12 h); epochs before the first RMC date take the date of an RMC within the next
/// `pendingEpochLimit` epochs, else `--date` (an assumption, counted), else the file is refused
/// naming `--date`. Accuracy: GST's √(σ_lat² + σ_lon²) (a DRMS, metres); else GGA HDOP, else GSA
/// HDOP, × `GPXAccuracy.uere_m` (an assumption, counted); else `--assume-accuracy` (counted); else
/// the file is refused naming `--assume-accuracy`. A position with GGA quality 0, RMC status V or
/// GLL status V is kept with accuracy NaN (the engine rejects it with its reason). NMEA carries no
/// geofence events.
enum NMEADeviceLogReader {
    /// Epochs without a date held while waiting for an RMC (a capture may start after an epoch's RMC).
    static let pendingEpochLimit = 64

    /// What one epoch has collected so far.
    struct Epoch {
        var timeText = ""
        var secondOfDay = 0.0
        var line = 0
        var latitude: Double?, longitude: Double?
        var rmcLatitude: Double?, rmcLongitude: Double?
        var gllLatitude: Double?, gllLongitude: Double?
        var hdop: Double?
        var gsaHDOP: Double?
        var gstSigma_m: Double?
        var invalid = false
        var date: Int?  // days since 1970-01-01
        /// The UTC day the wrapping record's time gives (GnssLogger), used when the epoch has no RMC date.
        var receivedDay: Int?
        var speed_mps: Double?, course_deg: Double?
        var vtgSpeed_mps: Double?, vtgCourse_deg: Double?
        /// Sentences read into the epoch and not counted as skipped (GGA/RMC/GLL with a position,
        /// GST, GSA, VTG); an epoch without a position counts them as `noFixSentence` when it ends.
        var sentences = 0
        var firstSentenceLine: Int?
        var latitudeOrFallback: Double? { latitude ?? rmcLatitude ?? gllLatitude }
        var longitudeOrFallback: Double? { longitude ?? rmcLongitude ?? gllLongitude }
        var hasPosition: Bool { latitudeOrFallback != nil }

        mutating func read(line: Int) {
            sentences += 1
            if firstSentenceLine == nil { firstSentenceLine = line }
        }
    }

    /// The date state carried from epoch to epoch.
    struct Calendar {
        var day: Int?
        var dayAssumed = false
        var lastSecondOfDay: Double?
        /// Epochs with a position before any date, oldest first.
        var pending: [Epoch] = []
    }

    /// An NMEA stream read one sentence at a time: the epoch being collected and the date carried.
    /// The NMEA file reader and GnssLogger's wrapped `NMEA,` lines share it.
    struct Stream {
        var epoch: Epoch?
        var calendar = Calendar()
        /// The provider of every fix it emits (GnssLogger: `nmea`, counted in `ingest.providers`);
        /// nil for an NMEA file.
        let provider: DeviceLogProvider?

        init(provider: DeviceLogProvider? = nil) { self.provider = provider }

        /// Reads one sentence (`$…*hh`, trimmed, not a comment) of line `line`.
        /// - Parameter receivedAt_s: the Unix time the sentence was logged at (GnssLogger's wrapper),
        ///   which dates an epoch without an RMC date; nil for an NMEA file.
        mutating func read(
            _ text: Substring, line: Int, receivedAt_s: Double? = nil, into builder: inout DeviceLogBuilder
        ) throws(DeviceLogProblemAtLine) {
            let fields: [Substring]
            switch sentenceFields(String(text)) {
            case .success(let f): fields = f
            case .failure(let d):
                try damaged(d.reason, .nmea(d.message), line: line, into: &builder)
                return
            }
            let address = fields[0]
            if address.hasPrefix("P") {
                builder.ingest.skip(.proprietarySentence, line: line)
                return
            }
            guard address.count == 5 else {
                builder.ingest.skip(.otherSentence, line: line)  // not talker + type (e.g. a query)
                return
            }
            let type = address.suffix(3)
            switch type {
            case "GSA", "VTG":
                guard epoch != nil else {
                    builder.ingest.skip(.sentenceWithoutEpoch, line: line)
                    return
                }
                if type == "GSA" {
                    try gsa(fields, line: line, into: &epoch!)
                } else {
                    try vtg(fields, line: line, into: &epoch!)
                }
                epoch!.read(line: line)
                return
            case "GGA", "RMC", "GST", "GLL": break
            default:
                builder.ingest.skip(.otherSentence, line: line)
                return
            }
            let timeIndex = type == "GLL" ? 5 : 1
            let timeField = fields.count > timeIndex ? fields[timeIndex] : ""
            if timeField.isEmpty {
                // A receiver without a fix writes its sentences with every field empty (an old GLL has no time).
                builder.ingest.skip(.noFixSentence, line: line)
                return
            }
            let time = try timeOfDay(timeField, type: type, line: line)
            if let e = epoch, e.timeText != timeField {
                try flush(e, into: &builder)
                epoch = nil
            }
            var e = epoch ?? Epoch(timeText: String(timeField), secondOfDay: time, line: line)
            if e.receivedDay == nil, let r = receivedAt_s {
                // Callers bound the received time; an out-of-range day is left unset, never trapped on.
                e.receivedDay = Int(exactly: ((r - time) / 86_400).rounded())
            }
            var positioned = true
            switch type {
            case "GGA": positioned = try gga(fields, line: line, into: &e)
            case "RMC": positioned = try rmc(fields, line: line, into: &e)
            case "GLL": positioned = try gll(fields, line: line, into: &e)
            default: try gst(fields, line: line, into: &e)
            }
            if positioned { e.read(line: line) } else { builder.ingest.skip(.noFixSentence, line: line) }
            epoch = e
        }

        /// Ends the stream: emits the last epoch and the epochs still waiting for a date.
        mutating func finish(at lastLine: Int, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine) {
            if let e = epoch { try flush(e, into: &builder) }
            epoch = nil
            try resolvePending(at: lastLine, into: &builder, final: true)
        }

        mutating func flush(_ e: Epoch, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine) {
            if let d = e.date ?? e.receivedDay {
                calendar.day = d
                calendar.dayAssumed = false
            } else if let d = calendar.day, let last = calendar.lastSecondOfDay, e.secondOfDay < last - 43_200 {
                calendar.day = d + 1  // past midnight without an RMC
            }
            calendar.lastSecondOfDay = e.secondOfDay
            guard e.hasPosition else {
                // No fix yet: the epoch's GST, GSA and VTG are not a fix either.
                if let first = e.firstSentenceLine {
                    builder.ingest.skip(.noFixSentence, line: first, count: e.sentences)
                }
                return
            }
            if calendar.day == nil {
                // Before any date: wait for an RMC a few epochs on, or take --date.
                if let assumed = builder.options.assumedDate_days {
                    calendar.day = assumed
                    calendar.dayAssumed = true
                } else {
                    calendar.pending.append(e)
                    if calendar.pending.count > pendingEpochLimit {
                        throw DeviceLogProblemAtLine(line: calendar.pending[0].line, problem: .noDate)
                    }
                    return
                }
            }
            try resolvePending(at: e.line, into: &builder, final: false)
            try emit(e, day: calendar.day!, dayAssumed: calendar.dayAssumed, into: &builder)
        }

        /// Emits the epochs held before the first date, dated back from the first known day.
        mutating func resolvePending(
            at line: Int, into builder: inout DeviceLogBuilder, final: Bool
        ) throws(DeviceLogProblemAtLine) {
            guard !calendar.pending.isEmpty else { return }
            guard var day = calendar.day else {
                if final { throw DeviceLogProblemAtLine(line: calendar.pending[0].line, problem: .noDate) }
                return
            }
            // Walk back from the dated epoch: a time of day more than 12 h later than the next one is the day before.
            var days = Array(repeating: 0, count: calendar.pending.count)
            var next = calendar.lastSecondOfDay ?? 0
            for i in calendar.pending.indices.reversed() {
                if calendar.pending[i].secondOfDay > next + 43_200 { day -= 1 }
                days[i] = day
                next = calendar.pending[i].secondOfDay
            }
            let held = calendar.pending
            calendar.pending = []
            for (i, e) in held.enumerated() { try emit(e, day: days[i], dayAssumed: false, into: &builder) }
        }

        func emit(
            _ e: Epoch, day: Int, dayAssumed: Bool, into builder: inout DeviceLogBuilder
        ) throws(DeviceLogProblemAtLine) {
            guard let lat = e.latitudeOrFallback, let lon = e.longitudeOrFallback,
                builder.selects(provider, line: e.line)
            else { return }
            let accuracy: Double
            var assumption: DeviceLogAssumption.Kind?
            if e.invalid {
                accuracy = .nan
            } else if let s = e.gstSigma_m {
                accuracy = s
            } else if let h = e.hdop ?? e.gsaHDOP {
                accuracy = h * GPXAccuracy.uere_m
                assumption = .accuracyFromHDOP
            } else if let m = builder.options.assumedAccuracy_m {
                accuracy = m
                assumption = .assumedAccuracy(m: m)
            } else {
                throw DeviceLogProblemAtLine(
                    line: e.line, problem: .noAccuracy("NMEA: position (no GST, GGA HDOP or GSA HDOP in its epoch)"))
            }
            if let assumption { builder.ingest.assume(assumption) }
            if dayAssumed, let d = builder.options.assumedDate_days { builder.ingest.assume(.assumedDate(days: d)) }
            try builder.add(
                line: e.line, timestamp_s: Double(day) * 86_400 + e.secondOfDay, latitude: lat, longitude: lon,
                accuracy_m: accuracy, speed_mps: e.speed_mps ?? e.vtgSpeed_mps,
                course_deg: e.course_deg ?? e.vtgCourse_deg, event: nil, provider: provider)
        }
    }

    /// A damaged line: skipped and counted, or refused under `--strict`.
    static func damaged(
        _ reason: DeviceLogSkipReason, _ problem: DeviceLogProblem, line: Int, into builder: inout DeviceLogBuilder
    ) throws(DeviceLogProblemAtLine) {
        if builder.options.strict { throw DeviceLogProblemAtLine(line: line, problem: problem) }
        builder.ingest.skip(reason, line: line)
    }

    static func read(_ lines: inout DeviceLogLines, into builder: inout DeviceLogBuilder) throws(DeviceLogProblemAtLine)
    {
        var stream = Stream()
        var lastLine = 0
        var sawLine = false
        while let line = try lines.next({ (bytes, line) throws(DeviceLogProblemAtLine) -> Int in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                sawLine = true
                try damaged(.notASentence, .invalidUTF8, line: line, into: &builder)
                return line
            }
            let trimmed = text.trimmingASCIISpaces
            if trimmed.isEmpty { return line }
            sawLine = true
            if trimmed.hasPrefix("#") {
                builder.ingest.skip(.comment, line: line)
                return line
            }
            try stream.read(trimmed, line: line, into: &builder)
            return line
        }) {
            lastLine = line
        }
        try stream.finish(at: lastLine, into: &builder)
        guard sawLine else { throw DeviceLogProblemAtLine(line: max(1, lastLine), problem: .emptyFile) }
        if builder.isEmpty {
            guard !builder.ingest.skipped.isEmpty else {
                throw DeviceLogProblemAtLine(line: lastLine, problem: .noData)
            }
            throw DeviceLogProblemAtLine(
                line: lastLine, problem: .noFix(format: .nmea, skipped: builder.ingest.skippedText))
        }
    }

    /// Why a line is not a well-formed sentence: the skip reason and the message `--strict` shows.
    struct Damage: Error {
        var reason: DeviceLogSkipReason
        var message: String
    }

    /// Checks `$…*hh` (or `!…*hh`) and the checksum; returns the comma-separated fields (address first).
    static func sentenceFields(_ s: String) -> Result<[Substring], Damage> {
        guard s.hasPrefix("$") || s.hasPrefix("!") else {
            return .failure(
                Damage(
                    reason: .notASentence,
                    message: "a sentence must start with '$', got '\(DeviceLogLexical.shown(s))'"))
        }
        guard let star = s.lastIndex(of: "*") else {
            return .failure(Damage(reason: .truncatedSentence, message: "no checksum ('*hh' at the end)"))
        }
        let body = s[s.index(after: s.startIndex)..<star]
        let given = s[s.index(after: star)...]
        guard given.count == 2, given.allSatisfy(\.isHexDigit) else {
            return .failure(
                Damage(
                    reason: .truncatedSentence,
                    message: "checksum must be two hex digits, got '\(DeviceLogLexical.shown(given))'"))
        }
        let computed = NMEASentence.checksum(body)
        guard given.uppercased() == computed else {
            return .failure(
                Damage(
                    reason: .badChecksum,
                    message: "checksum \(given) does not match the sentence (computed \(computed))"))
        }
        guard body.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            return .failure(
                Damage(reason: .notASentence, message: "sentence holds non-printable or non-ASCII characters"))
        }
        return .success(body.split(separator: ",", omittingEmptySubsequences: false))
    }

    /// Reads a GGA into the epoch; false when it carries no position.
    static func gga(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) -> Bool {
        try require(f, 9, "GGA", line: line)
        let position = try position(f[2], f[3], f[4], f[5], type: "GGA", line: line)
        if let (lat, lon) = position {
            e.latitude = lat
            e.longitude = lon
        }
        let quality = try number(f[6], "GGA fix quality", line: line)
        if quality == 0 { e.invalid = true }
        if let h = try number(f[8], "GGA HDOP", line: line) { e.hdop = h }
        return position != nil
    }

    /// Reads an RMC into the epoch; false when it carries no position.
    static func rmc(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) -> Bool {
        try require(f, 10, "RMC", line: line)
        switch f[2] {
        case "A": break
        case "V", "": e.invalid = true
        default:
            throw DeviceLogProblemAtLine(
                line: line, problem: .nmea("RMC status must be A or V, got '\(DeviceLogLexical.shown(f[2]))'"))
        }
        let position = try position(f[3], f[4], f[5], f[6], type: "RMC", line: line)
        if let (lat, lon) = position {
            e.rmcLatitude = lat
            e.rmcLongitude = lon
        }
        if let knots = try number(f[7], "RMC speed", line: line) { e.speed_mps = knots * NMEASentence.knot_mps }
        if let c = try number(f[8], "RMC course", line: line) { e.course_deg = c }
        if !f[9].isEmpty { e.date = try date(f[9], line: line) }
        return position != nil
    }

    /// Reads a GLL (`lat,N,lon,E,hhmmss,status[,mode]`) into the epoch; false when it carries no position.
    static func gll(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) -> Bool {
        try require(f, 7, "GLL", line: line)
        switch f[6] {
        case "A": break
        case "V", "": e.invalid = true
        default:
            throw DeviceLogProblemAtLine(
                line: line, problem: .nmea("GLL status must be A or V, got '\(DeviceLogLexical.shown(f[6]))'"))
        }
        let position = try position(f[1], f[2], f[3], f[4], type: "GLL", line: line)
        if let (lat, lon) = position {
            e.gllLatitude = lat
            e.gllLongitude = lon
        }
        return position != nil
    }

    static func gst(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) {
        try require(f, 8, "GST", line: line)
        if let sLat = try number(f[6], "GST latitude sigma", line: line),
            let sLon = try number(f[7], "GST longitude sigma", line: line)
        {
            e.gstSigma_m = (sLat * sLat + sLon * sLon).squareRoot()
        }
    }

    /// GSA: `mode,fixType,12 satellite IDs,PDOP,HDOP,VDOP[,system]`; only HDOP is read.
    static func gsa(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) {
        try require(f, 18, "GSA", line: line)
        if e.gsaHDOP == nil, let h = try number(f[16], "GSA HDOP", line: line) { e.gsaHDOP = h }
    }

    /// VTG: `course,T,course,M,knots,N,km/h,K[,mode]`; speed (knots, else km/h) and true course.
    static func vtg(_ f: [Substring], line: Int, into e: inout Epoch) throws(DeviceLogProblemAtLine) {
        try require(f, 9, "VTG", line: line)
        if let c = try number(f[1], "VTG course", line: line) { e.vtgCourse_deg = c }
        if let knots = try number(f[5], "VTG speed (knots)", line: line) {
            e.vtgSpeed_mps = knots * NMEASentence.knot_mps
        } else if let kmh = try number(f[7], "VTG speed (km/h)", line: line) {
            e.vtgSpeed_mps = kmh / 3.6
        }
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

    /// `hhmmss[.sss]` → seconds of the day (`type`: the sentence, named in the error).
    static func timeOfDay(_ s: Substring, type: Substring, line: Int) throws(DeviceLogProblemAtLine) -> Double {
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
                problem: .badTimestamp(
                    value: DeviceLogLexical.shown(s), reason: "\(type) time: NMEA time must be hhmmss[.ss]"))
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

    /// `ddmm.mmmm,N,dddmm.mmmm,E` → degrees; all four empty: nil (`type`: the sentence, named in errors).
    static func position(
        _ lat: Substring, _ ns: Substring, _ lon: Substring, _ ew: Substring, type: Substring,
        line: Int
    ) throws(DeviceLogProblemAtLine) -> (Double, Double)? {
        if lat.isEmpty, ns.isEmpty, lon.isEmpty, ew.isEmpty { return nil }
        let la = try angle(
            lat, degreeDigits: 2, hemisphere: ns, positive: "N", negative: "S", field: "\(type) latitude", line: line)
        let lo = try angle(
            lon, degreeDigits: 3, hemisphere: ew, positive: "E", negative: "W", field: "\(type) longitude", line: line)
        return (la, lo)
    }

    /// One `ddmm.mmmm` / `dddmm.mmmm` field and its hemisphere; errors name the field and its own value.
    static func angle(
        _ s: Substring, degreeDigits: Int, hemisphere: Substring, positive: Substring, negative: Substring,
        field: String, line: Int
    ) throws(DeviceLogProblemAtLine) -> Double {
        func fail(_ p: DeviceLogProblem) -> DeviceLogProblemAtLine { DeviceLogProblemAtLine(line: line, problem: p) }
        let b = Array(s.utf8)
        let isDecimal =
            !b.isEmpty && b.allSatisfy({ (48...57).contains($0) || $0 == 0x2E || $0 == 0x2D })
            && b.filter({ $0 == 0x2E }).count <= 1
        if isDecimal, let dot = b.firstIndex(of: 0x2E), dot < degreeDigits + 2 || b.first == 0x2D {
            throw fail(.decimalDegrees(field: field, value: DeviceLogLexical.shown(s)))
        }
        guard b.count >= degreeDigits + 2, b[0..<(degreeDigits + 2)].allSatisfy({ (48...57).contains($0) }),
            let degrees = Double(s.prefix(degreeDigits)), let minutes = Double(s.dropFirst(degreeDigits)),
            b.dropFirst(degreeDigits + 2).allSatisfy({ (48...57).contains($0) || $0 == 0x2E })
        else { throw fail(.notANumber(column: field, value: DeviceLogLexical.shown(s))) }
        guard minutes < 60 else {
            throw fail(.nmea("\(field): '\(DeviceLogLexical.shown(s))' has minutes of 60 or more"))
        }
        guard hemisphere == positive || hemisphere == negative else {
            throw fail(
                .nmea(
                    "\(field) hemisphere: '\(DeviceLogLexical.shown(hemisphere))' is not \(positive) or \(negative)"))
        }
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
