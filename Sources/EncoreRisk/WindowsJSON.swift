import EncoreModel
import EncoreSupport

/// Exposure windows in JSON, in the form of CWA's conformance file: each
/// window has `ageInDays` (its date is UTC midnight of `now` minus that many
/// days) or `date` (unix seconds of a UTC midnight), and `reportType`,
/// `infectiousness`, `calibrationConfidence` and `scanInstances`
/// (`minAttenuation`, `typicalAttenuation`, `secondsSinceLastScan`).
public enum WindowsJSON {
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
            let seconds = try d.integer()
            guard seconds >= 0, Int64(seconds) % UnixTime.day == 0 else { throw d.fail("must be the unix seconds of a UTC midnight") }
            date = Int64(seconds)
        } else {
            throw w.fail("needs ageInDays or date")
        }
        let reportTypeField = try w.member("reportType")
        guard let reportType = ReportType(rawValue: Int32(clamping: try reportTypeField.integer())) else { throw reportTypeField.fail("must be 0...5") }
        let infectiousnessField = try w.member("infectiousness")
        guard let infectiousness = Infectiousness(rawValue: Int32(clamping: try infectiousnessField.integer())) else {
            throw infectiousnessField.fail("must be 0...2")
        }
        let confidence = try w.integer("calibrationConfidence", in: 0 ... 3)
        let instances = try w.array("scanInstances").map { s -> ScanInstance in
            let minimum = try s.integer("minAttenuation"), typical = try s.integer("typicalAttenuation")
            let seconds = try s.integer("secondsSinceLastScan")
            guard (0 ... 255).contains(minimum), (0 ... 255).contains(typical) else { throw s.fail("attenuations must be 0...255") }
            guard abs(seconds) <= 86_400 else { throw s.fail("secondsSinceLastScan must be within a day") }
            return ScanInstance(typicalAttenuation: typical, minAttenuation: minimum, secondsSinceLastScan: seconds)
        }
        return ExposureWindow(date: date, reportType: reportType, infectiousness: infectiousness,
                              calibrationConfidence: confidence, scanInstances: instances)
    }
}
