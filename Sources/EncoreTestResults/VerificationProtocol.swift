import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// CWA's verification server, as requests and answers (no I/O): the
/// registration token for a test key, the test result, and the TAN that
/// authorises a submission. Every request is padded so that an observer of
/// the traffic cannot tell real requests from fake ones nor one endpoint
/// from another: bodies to 250 bytes with `requestPadding`, heads to the
/// length of the longest path with `cwa-header-padding`; fake ones carry
/// `cwa-fake: 1` and a fixed dummy registration token.
public enum VerificationProtocol {
    public static let registrationTokenPath = "/version/v1/registrationToken"
    public static let testResultPath = "/version/v1/testresult"
    public static let tanPath = "/version/v1/tan"
    /// What fake TAN and result requests name (a well-formed, unused token).
    public static let dummyRegistrationToken = "11111111-1111-4111-8111-111111111111"
    public static let paddedBodyBytes = 250

    public static func registrationToken(base: String, key: TestKey, dateOfBirthKey: String?) throws -> HTTPRequest {
        var members: [(String, JSONValue)] = [("key", .string(key.serverKey)), ("keyType", .string(key.keyType))]
        if let dateOfBirthKey { members.append(("keyDob", .string(dateOfBirthKey))) }
        return try request(base: base, path: registrationTokenPath, members: members, fake: false)
    }

    public static func testResult(base: String, registrationToken: String?) throws -> HTTPRequest {
        try request(base: base, path: testResultPath, members: [("registrationToken", .string(registrationToken ?? dummyRegistrationToken))],
                    fake: registrationToken == nil)
    }

    public static func tan(base: String, registrationToken: String?) throws -> HTTPRequest {
        try request(base: base, path: tanPath, members: [("registrationToken", .string(registrationToken ?? dummyRegistrationToken))],
                    fake: registrationToken == nil)
    }

    /// `{"registrationToken": T}` from a 201. The server answers 400 for a
    /// malformed key and for a key (or date-of-birth key) registered already.
    public static func registrationToken(from response: HTTPResponse) throws -> String {
        if response.status == 400 {
            throw EncoreError(.serverRefused, "registration: the verification server answered 400 (bad request): the key is registered already (a test code registers once) or malformed")
        }
        try expect(response, 201, "registration")
        return try uuid(member(response, "registrationToken"), "registrationToken")
    }

    /// The result (filed as the apps do for the kind of test registered,
    /// TestResult.validated) and its sample time from a 200. The server
    /// answers 400 for an unknown registration token (never registered, or
    /// deleted 21 days after registration) and 403 only when the result
    /// under the date-of-birth key differs from the test's.
    public static func testResult(from response: HTTPResponse, rapidAntigen: Bool = false) throws -> (result: TestResult, sampleCollectedAt: Int64?) {
        switch response.status {
        case 400:
            throw EncoreError(.serverRefused, "test result: the verification server answered 400 (bad request): it does not know the registration token (registrations are deleted after 21 days)")
        case 403:
            throw EncoreError(.dateOfBirthMismatch, "test result: the verification server answered 403 (forbidden): the result under the date of birth differs from the test's (a wrong date of birth?)")
        default:
            try expect(response, 200, "test result")
        }
        let r = try object(response)
        let code = try r.integer("testResult")
        guard let result = TestResult.validated(code: Int64(code), rapidAntigen: rapidAntigen) else {
            throw EncoreError(.protocolError, "the verification server answered an unknown test result \(code)")
        }
        let sample = try r.optionalMember("sc").map { try $0.integer() }
        guard sample.map({ $0 >= 0 }) ?? true else { throw EncoreError(.protocolError, "the verification server answered a negative sample time") }
        return (result, sample.map(Int64.init))
    }

    /// The TAN from a 201; 400 is the server's refusal (the result is not
    /// positive, or this registration's one TAN was issued already).
    public static func tan(from response: HTTPResponse) throws -> String {
        if response.status == 400 {
            throw EncoreError(.tanRefused, "TAN: the server answered 400 (bad request): it issues a TAN only for a positive result, once per test")
        }
        try expect(response, 201, "TAN")
        return try uuid(member(response, "tan"), "tan")
    }

    // MARK: - the wire form

    static func request(base: String, path: String, members: [(String, JSONValue)], fake: Bool) throws -> HTTPRequest {
        try URLPolicy.check(base)
        let body = try paddedJSON(members, to: paddedBodyBytes)
        let longest = [registrationTokenPath, testResultPath, tanPath].map(\.count).max() ?? 0
        return HTTPRequest(method: "POST", url: URLPolicy.joined(base, path), headers: [
            HTTPHeader("Content-Type", "application/json"),
            HTTPHeader("cwa-fake", fake ? "1" : "0"),
            // Never empty: an empty header is written differently on the wire.
            HTTPHeader("cwa-header-padding", String(repeating: "0", count: longest - path.count + 1)),
        ], body: body)
    }

    /// The object with a `requestPadding` member of random alphanumerics
    /// that makes its compact JSON exactly `size` bytes.
    static func paddedJSON(_ members: [(String, JSONValue)], to size: Int) throws -> [UInt8] {
        let bare = JSONValue.object(members + [("requestPadding", .string(""))]).rendered.utf8.count
        guard bare <= size else { throw EncoreError(.internalError, "a verification request is larger than \(size) bytes") }
        let padding = try RandomText.alphanumerics(size - bare)
        return Array(JSONValue.object(members + [("requestPadding", .string(padding))]).rendered.utf8)
    }

    static func expect(_ r: HTTPResponse, _ status: Int, _ what: String) throws {
        guard r.status != status else { return }
        throw ServerAnswer.error(r, what, server: "the verification server")
    }

    static func object(_ r: HTTPResponse) throws -> JSONReader {
        do {
            let v = try JSONParser.parse(r.body)
            guard case .object = v else { throw EncoreError(.protocolError, "not a JSON object") }
            return JSONReader(v)
        } catch let e as EncoreError {
            throw EncoreError(.protocolError, "the verification server's answer is not the JSON expected: \(e.message)")
        }
    }

    static func member(_ r: HTTPResponse, _ name: String) throws -> String {
        do { return try object(r).member(name).string() } catch let e as EncoreError {
            throw EncoreError(.protocolError, "the verification server's answer: \(e.message)")
        }
    }

    /// A token or TAN: a UUID (36 characters of hex and dashes) — it goes
    /// into later requests, so nothing else is accepted.
    static func uuid(_ text: String, _ what: String) throws -> String {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else {
            throw EncoreError(.protocolError, "the verification server answered a \(what) that is not a UUID")
        }
        return text
    }
}


/// Random text for padding (from the CSPRNG, so padding leaks nothing).
public enum RandomText {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    public static func alphanumerics(_ count: Int) throws -> String {
        // 62 letters: bytes below 248 (= 4 × 62) give each letter the same chance.
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            for b in try SecureRandom.bytes(count - out.count + 8) where b < 248 && out.count < count {
                out.append(alphabet[Int(b) % alphabet.count])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A random UUID (version 4), for fake TANs.
    public static func uuid() throws -> String {
        var b = try SecureRandom.bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let h = Hex.encode(b)
        let c = Array(h)
        return String(c[0 ..< 8]) + "-" + String(c[8 ..< 12]) + "-" + String(c[12 ..< 16]) + "-" + String(c[16 ..< 20]) + "-" + String(c[20 ..< 32])
    }
}
