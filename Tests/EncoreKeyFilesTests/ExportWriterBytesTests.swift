import CEncoreProto
import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Testing

/// export.bin and export.sig as encore writes them: protobuf-c packs the
/// official sample files as published, and ExportWriter gives for fixed
/// inputs the bytes the hand-written encoder wrote before protobuf-c's pack
/// replaced it (hex captured from it). The official files cannot be written
/// again through ExportWriter: their keys have no report type, which
/// ExportWriter always writes.
@Suite struct ExportWriterBytesTests {
    static func expectHex(_ name: String, _ bytes: [UInt8], _ expected: String) {
        let hex = Hex.encode(bytes)
        #expect(hex == expected, "\(name)")
    }

    /// protobuf-c writes what the real key servers wrote (field order,
    /// varint forms, which fields are present): the official bare files,
    /// unpacked and packed again, are the published bytes.
    @Test(arguments: ["exports/google-cpp/export.bin", "exports/immuni/export.bin"])
    func protobufCWritesTheOfficialFilesAsPublished(path: String) throws {
        let published = try TestData.bytes(path)
        let body = Array(published.dropFirst(ExportFormat.header.count))
        guard let m = body.withUnsafeBufferPointer({ ekexport__temporary_exposure_key_export__unpack(nil, $0.count, $0.baseAddress) }) else {
            Issue.record("\(path) does not unpack")
            return
        }
        defer { ekexport__temporary_exposure_key_export__free_unpacked(m, nil) }
        #expect(m.pointee.n_keys > 0)
        #expect(ExportFormat.header + ProtoBuilder.pack(m) == published)
    }

    static let info = SignatureInfo(appBundleID: "app", androidPackage: "", verificationKeyVersion: "v1", verificationKeyID: "262",
                                    signatureAlgorithm: "1.2.840.10045.4.3.2")

    @Test func fixedInputs() {
        var meta = ExportMetadata()
        meta.startTimestamp = 1_600_000_000
        meta.endTimestamp = 0
        meta.region = "DE"
        meta.batchNum = 1
        meta.batchSize = -2
        meta.signatureInfos = [Self.info, SignatureInfo()]
        let key = KeyData([UInt8](0 ..< 16))!
        let keys = [ExposureKey(keyData: key, transmissionRiskLevel: 0, rollingStartIntervalNumber: 2_650_000, rollingPeriod: 144,
                                reportType: .confirmedTest, daysSinceOnsetOfSymptoms: -14),
                    ExposureKey(keyData: key, transmissionRiskLevel: -1, rollingStartIntervalNumber: 0, rollingPeriod: 0, reportType: .unknown)]
        Self.expectHex("bin", ExportWriter.exportBin(metadata: meta, keys: keys, revisedKeys: [keys[1]]), "454b204578706f7274207631202020200900105e5f000000001100000000000000001a024445200128feffffffffffffffff0132250a0361707012001a02763122033236322a13312e322e3834302e31303034352e342e332e3232003a200a10000102030405060708090a0b0c0d0e0f10001890dfa1012090012801301b3a230a10000102030405060708090a0b0c0d0e0f10ffffffffffffffffff0118002000280042230a10000102030405060708090a0b0c0d0e0f10ffffffffffffffffff01180020002800")
        Self.expectHex("bare", ExportWriter.exportBin(metadata: ExportMetadata(), keys: []), "454b204578706f727420763120202020")
        Self.expectHex("sig", ExportWriter.exportSig([(Self.info, 1, 1, [0x30, 0x01]), (SignatureInfo(), 0, -1, [])]), "0a2f0a250a0361707012001a02763122033236322a13312e322e3834302e31303034352e342e332e3210011801220230010a110a00100018ffffffffffffffffff012200")
    }
}
