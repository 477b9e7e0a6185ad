import EncoreCrowdNotifier
import EncoreSupport
import EncoreTestSupport
import Testing

/// The location id of a trace location, CWA's and CrowdNotifier's: the
/// spec's known answers (Tests/data/cwa/android-presence-tracing-crypto-kat.json)
/// for ids from QR payloads and their hashes.
@Suite struct TraceLocationTests {
    @Test func locationIdsFromPayloads() throws {
        let vectors = try JSONReader(JSONParser.parse(TestData.bytes("cwa/android-presence-tracing-crypto-kat.json")))
        let cases = try vectors.array("locationIdFromQrCodePayload")
        #expect(cases.count == 2)
        for c in cases {
            let payload = try #require(Base64.decode(try c.member("qrCodePayloadBase64").string().utf8))
            let expected = try #require(Base64.decode(try c.member("expLocationIdBase64").string().utf8))
            #expect(TraceLocation.locationId(payload: payload) == expected)
        }
        for c in try vectors.array("locationIdHash") {
            let id = try #require(Hex.decode(try c.member("locationIdHex").string()))
            #expect(TraceLocation.locationIdHash(id) == (try #require(Hex.decode(try c.member("expLocationIdHashHex").string()))))
        }
    }
}
