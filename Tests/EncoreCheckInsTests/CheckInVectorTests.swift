import EncoreCheckIns
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Testing

/// The spec's known answers (Tests/data/cwa): AES-256-CBC + HMAC-SHA256
/// reports both ways, and the ten time-interval derivations (location ids
/// from QR payloads and their hashes: CrowdNotifier's TraceLocationTests; a
/// real QR code: the client's CheckInParsingTests).
@Suite struct CheckInVectorTests {
    static func json(_ name: String) throws -> JSONReader { try JSONReader(JSONParser.parse(TestData.bytes("cwa/" + name))) }
    static func b64(_ r: JSONReader, _ key: String) throws -> [UInt8] { try #require(Base64.decode(try r.member(key).string().utf8)) }
    static func hex(_ r: JSONReader, _ key: String) throws -> [UInt8] { try #require(Hex.decode(try r.member(key).string())) }

    /// The vectors' seed is 4 bytes ("1234"): the location id is defined on
    /// any payload (CrowdNotifier's TraceLocation computes it, held to these
    /// vectors in TraceLocationTests), but a scanned code must carry a 16- or
    /// 32-byte seed.
    @Test func theVectorsPayloadsAreNoCodeToScan() throws {
        let cases = try Self.json("android-presence-tracing-crypto-kat.json").array("locationIdFromQrCodePayload")
        #expect(cases.count == 2)
        for c in cases {
            let payload = try Self.b64(c, "qrCodePayloadBase64")
            #expect(throws: EncoreError.self) { try CheckInQRCode.parse(CheckInQRCode.text(payload: payload)) }
        }
    }

    @Test func reportsEncryptToTheKnownAnswers() throws {
        let vectors = try Self.json("android-presence-tracing-crypto-kat.json")
        for c in try vectors.array("encrypt") {
            let id = try Self.b64(c, "locationIdBase64")
            // Minutes → 10-minute intervals: start and end floored, period their difference.
            let start = UInt32(try c.integer("checkInStartEpochMinutes") / 10), end = UInt32(try c.integer("checkInEndEpochMinutes") / 10)
            let record = CheckInRecordCodec.encode(startInterval: start, period: end - start, transmissionRiskLevel: UInt32(try c.integer("transmissionRiskLevel")))
            let sealed = try CheckInCrypto.encrypt(record: record, keys: CheckInCrypto.Keys(locationId: id), iv: try Self.b64(c, "ivBase64"))
            #expect(sealed.ciphertext == (try Self.b64(c, "expEncryptedCheckInRecordBase64")))
            #expect(sealed.mac == (try Self.b64(c, "expMacBase64")))
        }
    }

    @Test func reportsDecryptToTheKnownAnswers() throws {
        let vectors = try Self.json("android-presence-tracing-crypto-kat.json")
        for c in try vectors.array("decrypt") {
            let keys = CheckInCrypto.Keys(locationId: try Self.b64(c, "locationIdBase64"))
            let iv = try Self.b64(c, "ivBase64"), sealed = try Self.b64(c, "encryptedCheckInRecordBase64"), mac = try Self.b64(c, "macBase64")
            let opened = try iv.withUnsafeBytes { i in try sealed.withUnsafeBytes { s in try mac.withUnsafeBytes { try CheckInCrypto.open(iv: i, ciphertext: s, mac: $0, keys: keys) } } }
            let plain = try opened.get()
            let r = try #require(CheckInRecordCodec.decode(plain))
            #expect(r.start == UInt64(try c.integer("expStartIntervalNumber")))
            #expect(r.period == UInt64(try c.integer("expPeriod")))
            #expect(r.trl == UInt64(try c.integer("expTransmissionRiskLevel")))
            // One flipped bit of the MAC, the IV or the ciphertext: refused before decryption.
            for (which, var bad) in [(0, mac), (1, iv), (2, sealed)] {
                bad[bad.count - 1] ^= 1
                let (m, v, s) = which == 0 ? (bad, iv, sealed) : which == 1 ? (mac, bad, sealed) : (mac, iv, bad)
                let r = try v.withUnsafeBytes { i in try s.withUnsafeBytes { c in try m.withUnsafeBytes { try CheckInCrypto.open(iv: i, ciphertext: c, mac: $0, keys: keys) } } }
                #expect(r == .failure(.mac))
            }
        }
    }

    /// "2021-03-04T06:21+01:00" → unix seconds.
    static func time(_ text: String) throws -> Int64 {
        let chars = Array(text)
        try #require(chars.count == 22)
        let midnight = try #require(UTCTime.midnight(ofDay: String(chars[0 ..< 10])))
        let h = try #require(Int64(String(chars[11 ..< 13]))), m = try #require(Int64(String(chars[14 ..< 16])))
        let oh = try #require(Int64(String(chars[17 ..< 19]))), om = try #require(Int64(String(chars[20 ..< 22])))
        let sign: Int64 = chars[16] == "-" ? -1 : 1
        return midnight + h * 3600 + m * 60 - sign * (oh * 3600 + om * 60)
    }

    @Test func theTenDerivationsOfTheVectorFile() throws {
        let vectors = try Self.json("ios-checkin-timeinterval-derivation.json")
        let parameters = try CheckInSubmissionParameters(vectors.member("defaultConfiguration"))
        #expect(parameters == .cwa)
        let cases = try vectors.array("testCases")
        #expect(cases.count == 10)
        for c in cases {
            let visit = TimeSpan(start: try Self.time(c.member("startDate").string()), end: try Self.time(c.member("endDate").string()))
            let derived = try parameters.derive(visit)
            let name = try c.member("description").string()
            if let start = try c.optionalMember("expStartDate") {
                let expected = TimeSpan(start: try Self.time(start.string()), end: try Self.time(c.member("expEndDate").string()))
                #expect(derived == expected, "\(name)")
            } else {
                #expect(derived == nil, "\(name)")
            }
        }
    }

    @Test func theProductionParametersAreBuiltIn() throws {
        let c = try #require(PresenceTracingRiskConfiguration.cwa)
        #expect(c.maxCheckInAgeInDays == 10)
        #expect((1 ... 8).map { c.transmissionRiskValue(UInt32($0)) } == [0, 0, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6])
        #expect(c.level(c.normalizedTimePerCheckInToRiskLevelMapping, 9.99) == .low)
        #expect(c.level(c.normalizedTimePerCheckInToRiskLevelMapping, 10) == .high)
        #expect(c.level(c.normalizedTimePerDayToRiskLevelMapping, 0) == .failed)
    }
}
