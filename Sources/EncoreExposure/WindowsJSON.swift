import EncoreKeyFiles
import EncoreSupport

/// Exposure windows in JSON, in the form of CWA's conformance file: each
/// window has `ageInDays` (its date is UTC midnight of `now` minus that many
/// days) or `date` ("YYYY-MM-DD", or the unix seconds of a UTC midnight),
/// and `reportType`, `infectiousness`, `calibrationConfidence` and
/// `scanInstances` (`minAttenuation`, `typicalAttenuation`,
/// `secondsSinceLastScan`). json() writes the same form with `date` as
/// "YYYY-MM-DD", so windows written by one encore command are read by another.
public enum WindowsJSON {
    public static func json(_ windows: [ExposureWindow]) -> JSONValue {
        .array(windows.map { w in
            .object([
                ("date", UTCTime.dayJSON(w.date)),
                ("reportType", .int(w.reportType.rawValue)),
                ("infectiousness", .int(w.infectiousness.rawValue)),
                ("calibrationConfidence", .int(w.calibrationConfidence)),
                ("scanInstances", .array(w.scanInstances.map {
                    .object([("minAttenuation", .int($0.minAttenuation)), ("typicalAttenuation", .int($0.typicalAttenuation)),
                             ("secondsSinceLastScan", .int($0.secondsSinceLastScan))])
                })),
            ])
        })
    }

    public static func windows(_ r: JSONReader, now: Int64) throws -> [ExposureWindow] {
        try UnixTime.checkNow(now, "exposure windows")
        return try r.array().map { try window($0, now: now) }
    }

    public static func windows(json bytes: [UInt8], now: Int64) throws -> [ExposureWindow] {
        try windows(JSONReader(JSONParser.parse(bytes)), now: now)
    }

    package static func window(_ w: JSONReader, now: Int64) throws -> ExposureWindow {
        let date: Int64
        if let age = try w.optionalMember("ageInDays") {
            let days = try age.integer(in: 0 ... 3650)
            date = UnixTime.utcMidnight(now) - Int64(days) * UnixTime.day
        } else if let d = try w.optionalMember("date") {
            if case .string(let text) = d.value {
                guard let midnight = UTCTime.midnight(ofDay: text) else { throw d.fail("must be a day YYYY-MM-DD") }
                date = midnight
            } else {
                date = Int64(try d.integer())
            }
        } else {
            throw w.fail("needs ageInDays or date")
        }
        let instances = try w.array("scanInstances").map { s in
            ScanInstance(typicalAttenuation: try s.integer("typicalAttenuation"), minAttenuation: try s.integer("minAttenuation"),
                         secondsSinceLastScan: try s.integer("secondsSinceLastScan"))
        }
        return try ExposureWindow(checkedDate: date, reportType: Int32(clamping: try w.integer("reportType")),
                                  infectiousness: Int32(clamping: try w.integer("infectiousness")),
                                  calibrationConfidence: try w.integer("calibrationConfidence"), scanInstances: instances,
                                  w.path.isEmpty ? "window" : w.path)
    }
}
