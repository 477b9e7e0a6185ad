import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// What identifies a test to CWA's verification server: the GUID of a lab
/// test's QR code, a teleTAN a hotline gave the user, or the QR code of a
/// rapid antigen or rapid PCR test from a point of care. Everything is
/// checked here, before any request, so a mistyped key never reaches the
/// server.
public enum TestKey: Sendable, Equatable {
    case guid(String)
    case teleTAN(String)
    case rapid(RapidTestCode)

    /// The key from a test QR code: a lab test's
    /// `https://localhost/?<6 hex>-<8 hex>-<4>-<4>-<4>-<12>` (the part after
    /// `?` is the GUID), or a rapid test's code (RapidTestCode, hash checked).
    public static func qrCode(_ url: String) throws -> TestKey {
        if RapidTestCode.isRapidTestURL(url) { return .rapid(try RapidTestCode.parse(url)) }
        let prefix = "https://localhost/?"
        guard url.lowercased().hasPrefix(prefix) else {
            throw EncoreError(.testKey, "not a CWA test QR code: it must start with \(prefix) (lab test), https://s.coronawarn.app?v=1# (rapid antigen test) or https://p.coronawarn.app?v=1# (rapid PCR test)")
        }
        return try .guid(checkedGUID(String(url.dropFirst(prefix.count))))
    }

    /// What kind of test the key stands for, when the key says it (a rapid
    /// code does; a GUID may be of a lab PCR or a rapid antigen test).
    public var rapidKind: RapidTestCode.Kind? {
        if case .rapid(let code) = self { return code.kind }
        return nil
    }

    /// A GUID as the QR code carries it: 6-8-4-4-4-12 hex digits.
    public static func checkedGUID(_ text: String) throws -> String {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [6, 8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else {
            throw EncoreError(.testKey, "a test GUID has 6-8-4-4-4-12 hex digits (\"\(text.prefix(64))\" does not)")
        }
        return text
    }

    /// The 29 characters a teleTAN is written with (no 0, 1, I, L, O).
    public static let teleTANAlphabet = Set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    /// A teleTAN: 9 characters of the alphabet and a check character (the
    /// first hex digit of SHA-256 of the 9, upper-cased, 0 as G and 1 as H).
    public static func checkedTeleTAN(_ text: String) throws -> String {
        let chars = Array(text)
        guard chars.count == 10, chars.allSatisfy(teleTANAlphabet.contains) else {
            throw EncoreError(.testKey, "a teleTAN has 10 characters of \(String(teleTANAlphabet.sorted()))")
        }
        guard chars[9] == teleTANCheckCharacter(String(chars[0 ..< 9])) else {
            throw EncoreError(.testKey, "the teleTAN's check character does not match: mistyped?")
        }
        return text
    }

    public static func teleTANCheckCharacter(_ body: String) -> Character {
        let digit = Hex.encode(Digest.sha256(Array(body.utf8))).uppercased().first ?? "0"
        return digit == "0" ? "G" : digit == "1" ? "H" : digit
    }

    /// What the verification server is sent as `key`: the lowercase hex
    /// SHA-256 of the GUID or of a rapid code's hash text, or the teleTAN
    /// as it is.
    public var serverKey: String {
        switch self {
        case .guid(let g): return Hex.encode(Digest.sha256(Array(g.utf8)))
        case .teleTAN(let t): return t
        case .rapid(let code): return code.registrationKey
        }
    }

    /// A rapid code registers as a GUID does (keyType "GUID").
    public var keyType: String {
        switch self {
        case .guid, .rapid: return "GUID"
        case .teleTAN: return "TELETAN"
        }
    }

    /// The date-of-birth key of a GUID: "x" + SHA-256(GUID ‖ ddMMyyyy) in
    /// hex without its first digit. `dateOfBirth` is "YYYY-MM-DD".
    public func dateOfBirthKey(_ dateOfBirth: String) throws -> String {
        guard case .guid(let guid) = self else {
            throw EncoreError(.testKey, "a date of birth goes with a lab test's GUID only, not with a teleTAN or a rapid test's code")
        }
        guard let (year, month, day) = UTCTime.civil(ofDay: dateOfBirth), (1900 ... 2100).contains(year) else {
            throw EncoreError(.testKey, "a date of birth is a day YYYY-MM-DD of 1900 to 2100 (\"\(dateOfBirth.prefix(20))\" is not)")
        }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ddMMyyyy = two(day) + two(month) + String(year)
        return "x" + String(Hex.encode(Digest.sha256(Array((guid + ddMMyyyy).utf8))).dropFirst())
    }
}
