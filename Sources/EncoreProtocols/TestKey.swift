import CCrypto
import EncoreModel
import EncoreSupport

/// What identifies a lab test to CWA's verification server: the GUID of a
/// test QR code, or a teleTAN a hotline gave the user. Everything is checked
/// here, before any request, so a mistyped key never reaches the server.
public enum TestKey: Sendable, Equatable {
    case guid(String)
    case teleTAN(String)

    /// The key from a test QR code, `https://localhost/?<6 hex>-<8 hex>-<4>-<4>-<4>-<12>`:
    /// the part after `?` is the GUID.
    public static func qrCode(_ url: String) throws -> TestKey {
        let prefix = "https://localhost/?"
        guard url.lowercased().hasPrefix(prefix) else {
            throw EncoreError(.testKey, "not a CWA test QR code: it must start with \(prefix)")
        }
        return try .guid(checkedGUID(String(url.dropFirst(prefix.count))))
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
        let digit = Hex.encode(sha256(Array(body.utf8))).uppercased().first ?? "0"
        return digit == "0" ? "G" : digit == "1" ? "H" : digit
    }

    /// What the verification server is sent as `key`: the lowercase hex
    /// SHA-256 of the GUID, or the teleTAN as it is.
    public var serverKey: String {
        switch self {
        case .guid(let g): return Hex.encode(Self.sha256(Array(g.utf8)))
        case .teleTAN(let t): return t
        }
    }

    public var keyType: String {
        switch self {
        case .guid: return "GUID"
        case .teleTAN: return "TELETAN"
        }
    }

    /// The date-of-birth key of a GUID: "x" + SHA-256(GUID ‖ ddMMyyyy) in
    /// hex without its first digit. `dateOfBirth` is "YYYY-MM-DD".
    public func dateOfBirthKey(_ dateOfBirth: String) throws -> String {
        guard case .guid(let guid) = self else {
            throw EncoreError(.testKey, "a date of birth goes with a GUID only, not with a teleTAN")
        }
        guard let (year, month, day) = UTCTime.civil(ofDay: dateOfBirth), (1900 ... 2100).contains(year) else {
            throw EncoreError(.testKey, "a date of birth is a day YYYY-MM-DD of 1900 to 2100 (\"\(dateOfBirth.prefix(20))\" is not)")
        }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ddMMyyyy = two(day) + two(month) + String(year)
        return "x" + String(Hex.encode(Self.sha256(Array((guid + ddMMyyyy).utf8))).dropFirst())
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { _ = SHA256($0.baseAddress, $0.count, &digest) }
        return digest
    }
}
