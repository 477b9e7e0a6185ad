import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreWire

/// The QR code of a rapid test made at a point of care (CWA's quick-test
/// portal): `https://s.coronawarn.app?v=1#<payload>` for a rapid antigen
/// test, `https://p.coronawarn.app?v=1#<payload>` for a rapid PCR test
/// (../shared/spec/test-result-and-submission.md, "Rapid tests"). The
/// payload is a JSON object in base64 whose `hash` the code carries for the
/// test result server and must match what the other members hash to; its
/// SHA-256 is the key the verification server registers.
/// The rules are Android's (the reference where the apps differ): unknown
/// members are refused, `timestamp` must be positive, an absent `salt` or
/// `testid` enters the hash as "null".
public struct RapidTestCode: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case rapidAntigen = "rapid-antigen"
        case rapidPCR = "rapid-pcr"
    }

    public var kind: Kind
    /// When the user consented at the point of care (Unix seconds).
    public var timestamp: Int64
    public var salt: String?
    public var testID: String?
    /// The 64 hex digits as the code carries them (either case).
    public var hash: String
    /// First and last name and date of birth ("yyyy-MM-dd"): all or none.
    public var firstName: String?
    public var lastName: String?
    public var dateOfBirth: String?
    /// The point of care can issue an EU digital COVID certificate.
    public var certificateOffered: Bool

    public var personal: Bool { dateOfBirth != nil }

    /// The URL prefixes, compared ignoring case (iOS does; Android's
    /// prefix check does too). Android also reads the rapid antigen code
    /// with a slash before the query; the rapid PCR code only as written.
    static let prefixes: [(String, Kind)] = [
        ("https://s.coronawarn.app?v=1#", .rapidAntigen),
        ("https://s.coronawarn.app/?v=1#", .rapidAntigen),
        ("https://p.coronawarn.app?v=1#", .rapidPCR),
    ]
    /// The members a payload may have (Android's parser refuses others).
    static let members: Set<String> = ["timestamp", "salt", "testid", "hash", "fn", "ln", "dob", "dgc"]
    /// Codes are small; anything far larger is not one.
    static let maxPayloadBytes = 4096

    /// Whether `url` claims to be a rapid test code (then `parse` says whether it is a good one).
    public static func isRapidTestURL(_ url: String) -> Bool { kind(of: url) != nil }

    static func kind(of url: String) -> (kind: Kind, payload: Substring)? {
        let lower = url.lowercased()
        for (prefix, kind) in prefixes where lower.hasPrefix(prefix) {
            return (kind, url.dropFirst(prefix.count))
        }
        return nil
    }

    /// The code's content, its hash checked.
    public static func parse(_ url: String) throws -> RapidTestCode {
        guard let (kind, payload) = kind(of: url) else {
            throw EncoreError(.testKey, "not a rapid test QR code: it starts with https://s.coronawarn.app?v=1# (rapid antigen) or https://p.coronawarn.app?v=1# (rapid PCR)")
        }
        guard !payload.isEmpty, payload.utf8.count <= maxPayloadBytes else {
            throw EncoreError(.testKey, "the rapid test code's payload (after #) is empty or over \(maxPayloadBytes) bytes")
        }
        // Both apps: standard base64 when it has +, / or =, else base64url
        // (padding optional either way). No white space in a URL.
        let standard = payload.contains { $0 == "+" || $0 == "/" || $0 == "=" }
        let bytes = payload.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/=-_".contains($0)) }
            ? (standard ? Base64.decode(Array(payload.utf8)) : Base64.decodeURL(String(payload))) : nil
        guard let bytes else { throw EncoreError(.testKey, "the rapid test code's payload is not base64") }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch {
            throw EncoreError(.testKey, "the rapid test code's payload is not JSON")
        }
        guard case .object(let members) = json else { throw EncoreError(.testKey, "the rapid test code's payload is not a JSON object") }
        if let unknown = members.first(where: { !Self.members.contains($0.0) }) {
            throw EncoreError(.testKey, "the rapid test code has a member \"\(unknown.0.prefix(32))\" the apps do not know")
        }
        let code = try RapidTestCode(kind: kind, json: json)
        guard code.hash.lowercased() == code.expectedHash else {
            throw EncoreError(.testCodeHash, "the rapid test code's hash does not match its content (\(code.personal ? "date of birth, names, " : "")timestamp\(code.personal ? ", test id" : "") and salt)")
        }
        return code
    }

    private init(kind: Kind, json: JSONValue) throws {
        func text(_ name: String) throws -> String? {
            switch json[name] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: throw EncoreError(.testKey, "the rapid test code's \(name) is not a string")
            }
        }
        guard case .integer(let t)? = json["timestamp"], t > 0 else {
            throw EncoreError(.testKey, "the rapid test code's timestamp must be an integer above 0")
        }
        guard let hash = try text("hash"), hash.utf8.count == 64, hash.allSatisfy(\.isHexDigit) else {
            throw EncoreError(.testKey, "the rapid test code's hash must be 64 hex digits")
        }
        let certificate: Bool
        switch json["dgc"] {
        case nil, .null?: certificate = false
        case .bool(let b)?: certificate = b
        default: throw EncoreError(.testKey, "the rapid test code's dgc is not true or false")
        }
        // An empty name or date counts as absent.
        func nonEmpty(_ name: String) throws -> String? { try text(name).flatMap { $0.isEmpty ? nil : $0 } }
        let fn = try nonEmpty("fn"), ln = try nonEmpty("ln"), dob = try nonEmpty("dob")
        let given = [fn, ln, dob].compactMap { $0 }.count
        guard given == 0 || given == 3 else {
            throw EncoreError(.testKey, "the rapid test code's personal data is incomplete: fn, ln and dob go together")
        }
        if let dob, UTCTime.civil(ofDay: dob) == nil {
            throw EncoreError(.testKey, "the rapid test code's dob is not a day yyyy-MM-dd (\"\(dob.prefix(20))\")")
        }
        self.kind = kind
        timestamp = t
        salt = try text("salt")
        testID = try text("testid")
        self.hash = hash
        firstName = fn
        lastName = ln
        dateOfBirth = dob
        certificateOffered = certificate
    }

    /// What `hash` must be: lowercase hex SHA-256 of
    /// `dob#fn#ln#timestamp#testid#salt` (with personal data) or
    /// `timestamp#salt` (anonymous); an absent string enters as "null".
    public var expectedHash: String {
        let salt = self.salt ?? "null"
        let text: String
        if let dob = dateOfBirth, let fn = firstName, let ln = lastName {
            text = "\(dob)#\(fn)#\(ln)#\(timestamp)#\(testID ?? "null")#\(salt)"
        } else {
            text = "\(timestamp)#\(salt)"
        }
        return Hex.encode(Digest.sha256(Array(text.utf8)))
    }

    /// The registration key: lowercase hex SHA-256 of the hash's 64
    /// characters as the code carries them (not of the bytes they encode).
    public var registrationKey: String { Hex.encode(Digest.sha256(Array(hash.utf8))) }
}
