import CCrypto
import EncoreHTTP
import EncoreSupport
import EncoreTestResults
import EncoreTestSupport
import Testing

/// Rapid antigen and rapid PCR tests (test-result-and-submission.md, "Rapid
/// tests"): the QR codes of CWA Android's own tests (TestQrCodes.kt) and
/// the spec's known answers, the members' rules at their boundaries, the
/// registration key, and the result codes as each kind of test files them.
@Suite struct RapidTestTests {
    // CWA Android's test codes (coronatest/qrcode/TestQrCodes.kt).
    static let raQrCode3 = "https://s.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2MTk2MTgzNTIsInNhbHQiOiJDRjBDNTQ3RkY2RDMwOTlBMkIwNkMxQzRFNEYwOEFGOSIsInRlc3RpZCI6ImY0N2VmODA0LTZmMGMtNDhiMy1hODY5LWUyZjg4NmIxMjU0ZiIsImhhc2giOiI3ZGNlMDhkYjBkNGFiZDVhYzFkMjQ5OGI1NzFhZmIyMjFjYTk0N2M3NWM4NDdkMDU0NjZiNGNmZTlkOTVkYzY2IiwiZm4iOiJKYWNvYiIsImxuIjoiVHlsZXIiLCJkb2IiOiIxOTYzLTAzLTE3In0="
    static let raQrAnonymousValidHash = "https://s.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2Mjc0MDM2NzEsInNhbHQiOiJEM0I1RkNDMkQxMzgzNDc0RjBERTY5NjA2OEFCQjMzOCIsInRlc3RpZCI6IjczMGM3MDc3LTU2ZmQtNDdiOC04MTNiLWZiNjc4OTVhODBiOSIsImhhc2giOiI2MWRmMDk5MjA3NzA0YTA3MmZiMmE5N2QzMTY4NzUyM2NhNTBmNWJiMDMxZmM1OGJjZDMyNWJkOWE5NzZmZDY4In0"
    static let raQrAnonymousInvalidHash = "https://s.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2Mjc0MDM2NzUsInNhbHQiOiJGQjRDMzZENDVFMjBBMkMwNzExNUFDMzIwMkI5OThBMiIsInRlc3RpZCI6IjlhYTNmMDM3LWM3MjgtNDRmNy1iMGVmLWVmMWM4MjdiYjAzNSIsImhhc2giOiI3MmQyYmJkNmMwM2QwMGFkMWRlZWQxYjE0Y2MzYjk4ZTVmMTQ1M2U5MDEzYTNiNWE1NTc2MDY1NmYzMWU4YmQ5In0"
    static let raQrIncompletePersonalData = "https://s.coronawarn.app?v=1#ewogICAgImZuIjoiTWF4IiwKICAgICJsbiI6IiIsCiAgICAiZG9iIjoiIiwKICAgICJ0ZXN0aWQiOiIwZTYwMGI0Mi1jYzIxLTRlNzUtOTE0Yy03MDYwMzE0M2I2Y2IiLAogICAgInRpbWVzdGFtcCI6IDE2MTkwMTI5NTIsCiAgICAic2FsdCI6IjUxMGYzZDc1MGMyZmM2MzFmYmNmZTMyY2IwNmJiYmE5IiwKICAgICJoYXNoIjoiZDZlNGQwMTgxZDgxMDliZjA1YjM0NmEwZDJlMGVmMGNjNDcyZWVkNzBkOWRmOGM0YjlhZTVjN2EwMDlmM2UzNCIKfQ"
    static let raPcrCode1 = "https://p.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2NDQyNzQ5MjAsInNhbHQiOiIzMjg0QzRGODUzNjgyQkI2MTBFMzAxQzY3QTUxOEZFOSIsInRlc3RpZCI6IjU4Y2E2OThmLTFmNmUtNDU3Zi1hMzcwLWU1OTVlY2IzNGZkNSIsImhhc2giOiJlNmRjZDVlNmZiMjgwMmYwODhmOTMxMDA2ZjQzNDYwZjBiMTYwNGRhNTRkNzgyOTljMDEwZTQxMTljYTA4ODJlIiwiZm4iOiJJc2FhYyIsImxuIjoiRHVwdXkiLCJkb2IiOiIxOTY1LTEyLTA4In0"

    /// A code made here from members (JSON as written), standard base64 or base64url.
    static func code(_ json: String, prefix: String = "https://s.coronawarn.app?v=1#", url: Bool = false) -> String {
        prefix + (url ? Base64.encodeURL(Array(json.utf8)) : Base64.encode(Array(json.utf8)))
    }

    /// The SHA-256 of the text in lowercase hex, straight from libcrypto (not the code under test).
    static func hash(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = Array(text.utf8).withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return Hex.encode(digest)
    }

    @Test func androidsCodesAndTheSpecsKnownAnswers() throws {
        let personal = try RapidTestCode.parse(Self.raQrCode3)
        #expect(personal.kind == .rapidAntigen && personal.personal && personal.timestamp == 1_619_618_352)
        #expect(personal.firstName == "Jacob" && personal.lastName == "Tyler" && personal.dateOfBirth == "1963-03-17")
        #expect(personal.hash == "7dce08db0d4abd5ac1d2498b571afb221ca947c75c847d05466b4cfe9d95dc66")
        #expect(personal.registrationKey == "7a5a84cc629c9e77aba15ef6068f976c156ab5d22cfb881ff1fdd17cee1a354d")
        #expect(try TestKey.qrCode(Self.raQrCode3).serverKey == personal.registrationKey)
        #expect(try TestKey.qrCode(Self.raQrCode3).keyType == "GUID")

        let anonymous = try RapidTestCode.parse(Self.raQrAnonymousValidHash)
        #expect(!anonymous.personal && anonymous.hash == "61df099207704a072fb2a97d31687523ca50f5bb031fc58bcd325bd9a976fd68")
        #expect(anonymous.testID == "730c7077-56fd-47b8-813b-fb67895a80b9")  // read, but not hashed

        let pcr = try RapidTestCode.parse(Self.raPcrCode1)
        #expect(pcr.kind == .rapidPCR && pcr.hash == "e6dcd5e6fb2802f088f931006f43460f0b1604da54d78299c010e4119ca0882e")

        let wrong = #expect(throws: EncoreError.self) { try RapidTestCode.parse(Self.raQrAnonymousInvalidHash) }
        #expect(wrong?.kind == .testCodeHash)
        let incomplete = #expect(throws: EncoreError.self) { try RapidTestCode.parse(Self.raQrIncompletePersonalData) }
        #expect(incomplete?.kind == .testKey && incomplete?.message.contains("incomplete") == true)
    }

    @Test func prefixesAndEncodings() throws {
        let json = #"{"timestamp":1627403671,"salt":"D3B5FCC2D1383474F0DE696068ABB338","hash":"61df099207704a072fb2a97d31687523ca50f5bb031fc58bcd325bd9a976fd68"}"#
        // Both rapid antigen prefixes, any case; standard base64 with padding and base64url without.
        for prefix in ["https://s.coronawarn.app?v=1#", "https://s.coronawarn.app/?v=1#", "HTTPS://S.CORONAWARN.APP?V=1#"] {
            #expect(try RapidTestCode.parse(Self.code(json, prefix: prefix)).kind == .rapidAntigen)
        }
        #expect(try RapidTestCode.parse(Self.code(json, url: true)).kind == .rapidAntigen)
        #expect(try RapidTestCode.parse(Self.code(json, prefix: "https://p.coronawarn.app?v=1#")).kind == .rapidPCR)
        // Not rapid codes: another host, version, a missing fragment; white space; not base64; not an object.
        for bad in [Self.code(json, prefix: "https://x.coronawarn.app?v=1#"), Self.code(json, prefix: "https://s.coronawarn.app?v=2#"),
                    "https://s.coronawarn.app?v=1#", "https://s.coronawarn.app?v=1# " + Base64.encode(Array(json.utf8)),
                    "https://s.coronawarn.app?v=1#!!!!", Self.code("[1]"), Self.code("{")] {
            #expect(throws: EncoreError.self) { try TestKey.qrCode(bad) }
        }
        // The lab code still goes, in any case of the prefix.
        #expect(try TestKey.qrCode("HTTPS://LOCALHOST/?123456-12345678-1234-4DA7-B166-B86D85475064") == .guid("123456-12345678-1234-4DA7-B166-B86D85475064"))
    }

    @Test func membersAtTheirBoundaries() throws {
        func make(_ members: String, salt: String = "AB", personal: (String, String, String)? = nil, timestamp: String = "1") -> String {
            let content = personal.map { "\($0.2)#\($0.0)#\($0.1)#\(timestamp)#t#\(salt)" } ?? "\(timestamp)#\(salt)"
            return Self.code(#"{"timestamp":\#(timestamp),"salt":"\#(salt)","hash":"\#(Self.hash(content))"\#(members)}"#)
        }
        #expect(try RapidTestCode.parse(make("")).timestamp == 1)                                   // the smallest timestamp
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(make("", timestamp: "0")) }     // > 0 (Android)
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(make("", timestamp: "-1")) }
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(make("", timestamp: "1.5")) }
        // Personal data: all three (and the test id in the hash), or none; empty counts as absent.
        let full = try RapidTestCode.parse(make(#","testid":"t","fn":"A","ln":"B","dob":"2000-02-29""#, personal: ("A", "B", "2000-02-29")))
        #expect(full.personal && full.dateOfBirth == "2000-02-29")
        #expect(!(try RapidTestCode.parse(make(#","fn":"","ln":"","dob":"""#))).personal)
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(make(#","testid":"t","fn":"A","ln":"B""#)) }
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(make(#","testid":"t","fn":"A","ln":"B","dob":"2001-02-29""#, personal: ("A", "B", "2001-02-29"))) }
        // dgc: a boolean; an unknown member refused (Android's parser).
        #expect(try RapidTestCode.parse(make(#","dgc":true"#)).certificateOffered)
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(make(#","dgc":"yes""#)) }
        let unknown = #expect(throws: EncoreError.self) { try RapidTestCode.parse(make(#","extra":1"#)) }
        #expect(unknown?.message.contains("extra") == true)
        // The hash: 64 hex digits of either case; 63 or a non-hex digit is malformed.
        let upper = Self.code(#"{"timestamp":1,"salt":"AB","hash":"\#(Self.hash("1#AB").uppercased())"}"#)
        #expect(try RapidTestCode.parse(upper).registrationKey == Self.hash(Self.hash("1#AB").uppercased()))  // of the text as it stands
        for bad in [String(Self.hash("1#AB").dropLast()), String(Self.hash("1#AB").dropLast()) + "g"] {
            let e = #expect(throws: EncoreError.self) { try RapidTestCode.parse(Self.code(#"{"timestamp":1,"salt":"AB","hash":"\#(bad)"}"#)) }
            #expect(e?.kind == .testKey)
        }
        // An absent salt enters the hash as "null" (Android).
        #expect(try RapidTestCode.parse(Self.code(#"{"timestamp":7,"hash":"\#(Self.hash("7#null"))"}"#)).salt == nil)
        #expect(throws: EncoreError.self) { try RapidTestCode.parse(Self.code(#"{"timestamp":7,"hash":"\#(Self.hash("7#"))"}"#)) }
        // A date of birth key never goes with a rapid code.
        #expect(throws: EncoreError.self) { try TestKey.qrCode(Self.raQrCode3).dateOfBirthKey("1963-03-17") }
    }

    @Test func resultCodesAsEachTestFilesThem() {
        func filed(_ code: Int64, rat: Bool) -> String? {
            TestResult.validated(code: code, rapidAntigen: rat).map { "\($0.value.name)\($0.rapid ? "/rat" : "")" }
        }
        // A rapid antigen test: 5...9 as named, 0 pending, 4 redeemed, a PCR verdict invalid.
        #expect((0 ... 9).map { filed($0, rat: true) } == ["PENDING/rat", "INVALID/rat", "INVALID/rat", "INVALID/rat", "REDEEMED/rat",
                                                        "PENDING/rat", "NEGATIVE/rat", "POSITIVE/rat", "INVALID/rat", "REDEEMED/rat"])
        // A PCR test (lab or rapid PCR): 0...4 as named, 5...9 invalid.
        #expect((0 ... 9).map { filed($0, rat: false) } == ["PENDING", "NEGATIVE", "POSITIVE", "INVALID", "REDEEMED",
                                                         "INVALID", "INVALID", "INVALID", "INVALID", "INVALID"])
        for outside: Int64 in [-1, 10, 14, 1 << 40] {
            #expect(filed(outside, rat: true) == nil && filed(outside, rat: false) == nil)
        }
    }

    @Test func verificationAnswersFollowTheCorrectedSpec() throws {
        func answer(_ status: Int, _ body: String = "") -> HTTPResponse { HTTPResponse(status: status, body: Array(body.utf8)) }
        #expect(try VerificationProtocol.testResult(from: answer(200, #"{"testResult": 7, "sc": 5}"#), rapidAntigen: true).result == TestResult(value: .positive, rapid: true))
        #expect(try VerificationProtocol.testResult(from: answer(200, #"{"testResult": 7, "sc": 5}"#)).result == TestResult(value: .invalid, rapid: false))
        // 400: an unknown registration token; 403 only for the date-of-birth mismatch.
        let unknown = #expect(throws: EncoreError.self) { try VerificationProtocol.testResult(from: answer(400)) }
        #expect(unknown?.kind == .serverRefused)
        let mismatch = #expect(throws: EncoreError.self) { try VerificationProtocol.testResult(from: answer(403)) }
        #expect(mismatch?.kind == .dateOfBirthMismatch)
        // The TAN refused with 400 (not positive, or issued already).
        let refused = #expect(throws: EncoreError.self) { try VerificationProtocol.tan(from: answer(400)) }
        #expect(refused?.kind == .tanRefused)
        let registration = #expect(throws: EncoreError.self) { try VerificationProtocol.registrationToken(from: answer(400)) }
        #expect(registration?.kind == .serverRefused && registration?.message.contains("registered already") == true)
    }
}
