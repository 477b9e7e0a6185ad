import EncoreCrypto
import EncoreSupport
import EncoreTestSupport
import Foundation
import Testing

/// Tests/data/enf/test_vectors_v1.2.json: the published ENF v1.2 vectors
/// (one TEK, its RPIK and AEMK, all 144 RPIs and AEMs).
@Suite struct ENFKeyScheduleTests {
    struct Vectors {
        var tek: KeyData, rpik: KeyData, aemk: KeyData
        var metadata: [UInt8]
        var start: UInt32, period: Int
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
                       intervals: intervals)
    }

    @Test func derivedKeysMatch() throws {
        let v = try Self.load()
        #expect(try ENFKeySchedule.rpik(tek: v.tek) == v.rpik)
        #expect(try ENFKeySchedule.aemk(tek: v.tek) == v.aemk)
    }

    @Test func all144RPIsAndAEMsMatch() throws {
        let v = try Self.load()
        #expect(v.intervals.count == 144 && v.period == 144)
        let rpis = try ENFKeySchedule.rpis(rpik: v.rpik, start: v.start, count: v.period)
        for (i, expected) in v.intervals.enumerated() {
            #expect(expected.enin == v.start + UInt32(i))
            #expect(rpis[i].hex == expected.rpi, "interval \(expected.enin)")
            let aem = try ENFKeySchedule.aem(aemk: v.aemk, rpi: rpis[i], metadata: v.metadata)
            #expect(Hex.encode(aem) == expected.aem, "interval \(expected.enin)")
            // Decryption is the same operation.
            #expect(try ENFKeySchedule.aem(aemk: v.aemk, rpi: rpis[i], metadata: aem) == v.metadata)
        }
    }

    @Test func specExampleFirstInterval() throws {
        let tek = try #require(Hex.decode("75c734c6dd1a782de7a965da5eb93125").flatMap(KeyData.init))
        let rpik = try ENFKeySchedule.rpik(tek: tek)
        #expect(rpik.hex == "185ad91db69ec7dd048960f1f3ba6175")
        let rpi = try ENFKeySchedule.rpi(rpik: rpik, interval: 2_642_976)
        #expect(rpi.hex == "8be6cd371c5c891604bfbe49df845096")
        #expect(Hex.encode(try ENFKeySchedule.aem(aemk: ENFKeySchedule.aemk(tek: tek), rpi: rpi, metadata: [0x40, 0x08, 0, 0])) == "72033874")
    }
}
