import EncoreSupport
import EncoreTestResults

/// The polkit action that guards each member of org.encore.Exposure1
/// (support/polkit: who is allowed by default).
public enum DeviceAction: String, Sendable, CaseIterable {
    /// The properties (health data): active local users.
    case read = "org.encore.Exposure.read"
    /// SetEnabled, SyncNow, RegisterTest, CheckIn, CheckOut: active local users.
    case manage = "org.encore.Exposure.manage"
    /// SubmitKeys: the user authenticates every time (GAEN's consent).
    case submitKeys = "org.encore.Exposure.submit-keys"
    /// DeleteAllData: an administrator.
    case deleteData = "org.encore.Exposure.delete-data"

    /// The action of a member (Get and GetAll: read); nil for none of ours.
    public static func of(member: String) -> DeviceAction? {
        switch member {
        case "Get", "GetAll": return .read
        case "SetEnabled", "SyncNow", "RegisterTest", "CheckIn", "CheckOut": return .manage
        case "SubmitKeys": return .submitKeys
        case "DeleteAllData": return .deleteData
        default: return nil
        }
    }

    /// polkit may ask the user to authenticate (the ones that need it).
    public var interactive: Bool { self == .submitKeys || self == .deleteData }
}

/// An answer's error on the bus: `org.encore.Error.<Kind>`, its message
/// the library's status name and its message.
public struct DeviceError: Error, Sendable, Equatable {
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// polkit said no (or could not be asked).
    public static func notAuthorized(_ action: DeviceAction, _ why: String) -> DeviceError {
        DeviceError(name: "org.encore.Error.NotAuthorized", message: "ENCORE_ERR_NOT_AUTHORIZED: \(action.rawValue): \(why)")
    }

    public init(_ error: any Error) {
        let e = EncoreError.wrapping(error, "encored")
        let kind = e.kind.name
        name = "org.encore.Error." + kind.prefix(1).uppercased() + kind.dropFirst()
        message = "\(Self.statusName(e.kind)): \(e.message)"
    }

    /// The kinds whose C status is not their name in capitals with
    /// underscores (include/encore.h).
    static let irregularStatusNames: [String: String] = [
        "internalError": "ENCORE_ERR_INTERNAL", "protocolError": "ENCORE_ERR_PROTOCOL", "dateOfBirthMismatch": "ENCORE_ERR_DOB_MISMATCH",
        "checkInTimes": "ENCORE_ERR_CHECKIN_TIMES", "checkInQRRequired": "ENCORE_ERR_CHECKIN_QR_REQUIRED",
        "checkInQRMismatch": "ENCORE_ERR_CHECKIN_QR_MISMATCH",
    ]

    /// The library's status name of a kind: notPositive → ENCORE_ERR_NOT_POSITIVE.
    static func statusName(_ kind: EncoreError.Kind) -> String {
        if let name = irregularStatusNames[kind.name] { return name }
        var out = "ENCORE_ERR_"
        var previousLower = false
        for c in kind.name {
            if c.isUppercase, previousLower { out += "_" }
            out += c.uppercased()
            previousLower = c.isLowercase || c.isNumber
        }
        return out
    }
}

/// The arguments of the calls, read as the library reads them.
public enum DeviceArguments {
    /// RegisterTest's code: a test's QR code (a URL), a teleTAN or a GUID.
    public static func testKey(_ code: String) throws -> TestKey {
        if code.hasPrefix("https://") || code.hasPrefix("http://") { return try .qrCode(code) }
        if let tan = try? TestKey.checkedTeleTAN(code) { return .teleTAN(tan) }
        return .guid(try TestKey.checkedGUID(code))
    }

    /// SubmitKeys' dictionary: none is CWA's "no statement"; onset
    /// (YYYY-MM-DD) the day symptoms began; symptomatic without onset:
    /// symptoms at an unknown time (true) or none (false).
    public static func symptoms(onset: String?, symptomatic: Bool?) throws -> Symptoms {
        if let onset {
            guard symptomatic != false else {
                throw EncoreError(.invalidArgument, "symptoms: an onset day with symptomatic false contradicts itself")
            }
            guard let day = UTCTime.midnight(ofDay: onset) else { throw EncoreError(.invalidArgument, "symptoms: onset is a day YYYY-MM-DD") }
            return .onset(day: day)
        }
        switch symptomatic {
        case true?: return .onsetUnknown
        case false?: return Symptoms.none
        case nil: return .noInformation
        }
    }

    /// CheckOut's id: the number CheckIn answered.
    public static func checkInID(_ text: String) throws -> Int64 {
        guard let id = Int64(text), id > 0 else { throw EncoreError(.invalidArgument, "'\(text)' is not a check-in id (CheckIn's answer)") }
        return id
    }
}
