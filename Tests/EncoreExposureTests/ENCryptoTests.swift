import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Foundation
import Testing

/// Tests/data/enf/test_vectors_v1.2.json: the published ENF v1.2 vectors
/// (one TEK, its RPIK and AEMK, all 144 RPIs and AEMs).
@Suite struct ENCryptoTests {
    struct Vectors {
        var tek: KeyData, rpik: KeyData, aemk: KeyData
        var metadata: [UInt8]
        var start: UInt32, period: Int, keyGenerationSeconds: Int64
        var intervals: [(enin: UInt32, rpi: String, aem: String)]
    }

    static func load() throws -> Vectors {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(TestData.bytes("enf/test_vectors_v1.2.json"))) as? [String: Any])
        func key(_ n: String) throws -> KeyData { try #require((json[n] as? String).flatMap(Hex.decode).flatMap(KeyData.init)) }
        func int(_ n: String) throws -> Int { try #require((json[n] as? NSNumber)?.intValue) }
        let list = try #require(json["intervals"] as? [[String: Any]])
        let intervals = try list.map { i -> (UInt32, String, String) in
            (UInt32(try #require((i["enin"] as? NSNumber)?.intValue)), try #require(i["rpi"] as? String), try #require(i["aem"] as? String))
        }
        return Vectors(tek: try key("tek"), rpik: try key("rpik"), aemk: try key("aemk"),
                       metadata: try #require((json["ble_metadata"] as? String).flatMap(Hex.decode)),
                       start: UInt32(try int("rolling_start_interval_number")), period: try int("rolling_period"),
                       keyGenerationSeconds: Int64(try int("key_generation_unix_seconds")), intervals: intervals)
    }

    @Test func derivedKeysMatch() throws {
        let v = try Self.load()
        #expect(try ENCrypto.rpik(tek: v.tek) == v.rpik)
        #expect(try ENCrypto.aemk(tek: v.tek) == v.aemk)
        #expect(ENInterval.number(unixSeconds: v.keyGenerationSeconds) == v.start)
        #expect(ENInterval.dayStart(v.start + 77) == v.start)
    }

    @Test func all144RPIsAndAEMsMatch() throws {
        let v = try Self.load()
        #expect(v.intervals.count == 144 && v.period == 144)
        let rpis = try ENCrypto.rpis(rpik: v.rpik, start: v.start, count: v.period)
        for (i, expected) in v.intervals.enumerated() {
            #expect(expected.enin == v.start + UInt32(i))
            #expect(rpis[i].hex == expected.rpi, "interval \(expected.enin)")
            let aem = try ENCrypto.aem(aemk: v.aemk, rpi: rpis[i], metadata: v.metadata)
            #expect(Hex.encode(aem) == expected.aem, "interval \(expected.enin)")
            // Decryption is the same operation.
            #expect(try ENCrypto.aem(aemk: v.aemk, rpi: rpis[i], metadata: aem) == v.metadata)
        }
    }

    @Test func specExampleFirstInterval() throws {
        let tek = try #require(Hex.decode("75c734c6dd1a782de7a965da5eb93125").flatMap(KeyData.init))
        let rpik = try ENCrypto.rpik(tek: tek)
        #expect(rpik.hex == "185ad91db69ec7dd048960f1f3ba6175")
        let rpi = try ENCrypto.rpi(rpik: rpik, interval: 2_642_976)
        #expect(rpi.hex == "8be6cd371c5c891604bfbe49df845096")
        #expect(Hex.encode(try ENCrypto.aem(aemk: ENCrypto.aemk(tek: tek), rpi: rpi, metadata: [0x40, 0x08, 0, 0])) == "72033874")
    }
}
