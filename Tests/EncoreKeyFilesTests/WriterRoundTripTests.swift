import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Testing

@Suite struct WriterRoundTripTests {
    @Test func signedFileRoundTripsEveryField() throws {
        let signer = try PrivateKey()
        let keys = (0 ..< 50).map { Fixtures.key($0, period: Int32(1 + $0 % 144), dsos: $0 % 3 == 0 ? nil : Int32($0 % 29) - 14) }
        let revised = [Fixtures.key(7, reportType: .revoked)]
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: keys, revisedKeys: revised,
                                                 signer: signer, info: Fixtures.info())
        let f = try KeyFile(bytes: zip, options: KeyFileOptions(trust: Fixtures.trust(signer)))
        #expect(f.signature.status == .verified)
        #expect(f.metadata.region == "DE")
        #expect(f.metadata.startTimestamp == 1_600_000_000 && f.metadata.endTimestamp == 1_600_086_400)
        #expect(try f.keys() == keys)
        #expect(try f.keys(in: .revisedKeys) == revised)
        #expect(f.metadata.invalidKeyCount == 0)
    }

    @Test func sha512SignaturesVerify() throws {
        let signer = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: [Fixtures.key(1)], signer: signer,
                                                 info: Fixtures.info(algorithm: "1.2.840.10045.4.3.4"))
        let f = try KeyFile(bytes: zip, options: KeyFileOptions(trust: Fixtures.trust(signer)))
        #expect(f.signature.status == .verified)
    }

    @Test func legacyAlgorithmStringVerifies() throws {
        let signer = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: [Fixtures.key(1)], signer: signer,
                                                 info: Fixtures.info(algorithm: "ECDSA p-256 SHA-256"))
        #expect(try KeyFile(bytes: zip, options: KeyFileOptions(trust: Fixtures.trust(signer))).signature.status == .verified)
    }

    @Test func oneOfSeveralTrustedKeysSuffices() throws {
        let a = try PrivateKey(), b = try PrivateKey()
        let trust = try Fixtures.trust(a, id: "a", version: "1")
        try trust.add(id: "b", version: "2", material: b.publicKeyPEM())
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: [Fixtures.key(1)], signer: b,
                                                 info: Fixtures.info(id: "b", version: "2"))
        let f = try KeyFile(bytes: zip, options: KeyFileOptions(trust: trust))
        #expect(f.signature.keyID == "b" && f.signature.keyVersion == "2")
    }

    @Test func wrongKeyUnderTheRightNameIsInvalid() throws {
        let signer = try PrivateKey(), other = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: [Fixtures.key(1)], signer: signer, info: Fixtures.info())
        #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(trust: Fixtures.trust(other))) } == .signatureInvalid)
        #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(trust: TrustList())) } == .signatureUntrusted)
        #expect(kind { try KeyFile(bytes: zip) } == .signatureUntrusted)
        #expect(try KeyFile(bytes: zip, options: KeyFileOptions(verify: false)).signature.status == .skipped)
    }

    @Test func everyChangedByteOfExportBinBreaksTheSignature() throws {
        let signer = try PrivateKey()
        let keys = (0 ..< 4).map { Fixtures.key($0) }
        let trust = try Fixtures.trust(signer)
        var meta = Fixtures.metadata()
        meta.signatureInfos = [Fixtures.info()]
        let bin = ExportWriter.exportBin(metadata: meta, keys: keys)
        let der = try bin.withUnsafeBytes { try signer.sign($0, algorithm: .sha256) }
        let sig = ExportWriter.exportSig([(Fixtures.info(), 1, 1, der)])
        for i in 0 ..< bin.count {
            var changed = bin
            changed[i] ^= 0x01
            // Stored members with correct CRCs: only the signature can notice.
            let zip = try ZipWriter.archive([.init(name: "export.bin", data: changed, compress: false),
                                             .init(name: "export.sig", data: sig, compress: false)])
            let k = kind { try KeyFile(bytes: zip, options: KeyFileOptions(trust: trust)) }
            #expect(k != nil, "byte \(i) changed but the file was accepted")
            if i >= ExportFormat.header.count, k != .exportMalformed, k != .batch {
                #expect(k == .signatureInvalid, "byte \(i): \(String(describing: k))")
            }
        }
    }

    @Test func batchRulesApplyWhenVerifying() throws {
        let signer = try PrivateKey()
        let trust = try Fixtures.trust(signer)
        for (num, size) in [(Int32(0), Int32(1)), (2, 1), (1, 1_000_001), (-1, 5)] {
            let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(batchNum: num, batchSize: size),
                                                     keys: [Fixtures.key(1)], signer: signer, info: Fixtures.info())
            #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(trust: trust)) } == .batch, "batch \(num)/\(size)")
        }
        let ok = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(batchNum: 3, batchSize: 5),
                                                keys: [Fixtures.key(1)], signer: signer, info: Fixtures.info())
        #expect(try KeyFile(bytes: ok, options: KeyFileOptions(trust: trust)).metadata.batchNum == 3)
    }

    @Test func invalidKeysAreCountedAndSkipped() throws {
        var bad16 = Fixtures.key(2)
        bad16.rollingPeriod = 0
        var bad145 = Fixtures.key(3)
        bad145.rollingPeriod = 145
        let good = [Fixtures.key(1), Fixtures.key(4)]
        var bin = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: [good[0], bad16, bad145, good[1]])
        // A key whose key_data has 15 bytes and one with report type 6.
        let short = ProtoSamples.key(.keyData([UInt8](repeating: 1, count: 15)))
        let badType = ProtoSamples.key(.keyData([UInt8](repeating: 2, count: 16)), .reportType(6))
        bin += ProtoSamples.raw(.lengthDelimited(7, short), .lengthDelimited(7, badType))
        let f = try KeyFile(bytes: bin, options: KeyFileOptions(verify: false))
        #expect(f.metadata.keyCount == 2)
        #expect(f.metadata.invalidKeyCount == 4)
        #expect(try f.keys() == good)
    }

    @Test func absentRollingPeriodMeans144AndUnknownFieldsAreSkipped() throws {
        // The key's fields 1, 3, 8 (variant_of_concern: a newer field), 6.
        let key = ProtoSamples.key([.keyData([UInt8](repeating: 9, count: 16)), .rollingStart(2_650_032)])
            + ProtoSamples.raw(.varint(8, 1)) + ProtoSamples.key(.dsos(-3))
        var meta = ExportMetadata()
        meta.region = "EUR"
        let body = ExportWriter.exportBin(metadata: meta, keys: [])
            + ProtoSamples.raw(.varint(99, 12345), .lengthDelimited(7, key)) // 99: an unknown top-level field
        let f = try KeyFile(bytes: body, options: KeyFileOptions(verify: false))
        let k = try #require(try f.keys().first)
        #expect(k.rollingPeriod == 144)
        #expect(k.daysSinceOnsetOfSymptoms == -3)
        #expect(k.reportType == .unknown)
        #expect(f.metadata.region == "EUR")
    }

    @Test func keysCanBeReadInChunks() throws {
        let keys = (0 ..< 1000).map { Fixtures.key($0) }
        let bin = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: keys)
        let f = try KeyFile(bytes: bin, options: KeyFileOptions(verify: false))
        var cursor = KeyCursor(list: .keys)
        var got: [ExposureKey] = []
        while try f.read(&cursor, maxCount: 37, { got.append($0) }) > 0 {}
        #expect(got == keys)
        #expect(cursor.index == 1000)
    }

    @Test func progressIsReportedAndCanCancel() throws {
        let bin = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: (0 ..< 200_000).map { Fixtures.key($0) })
        var calls: [(UInt64, UInt64)] = []
        _ = try KeyFile(bytes: bin, options: KeyFileOptions(verify: false, progress: { calls.append(($0, $1)); return true }))
        #expect(calls.count >= 3)
        #expect(calls.last.map { $0.0 == $0.1 } == true)
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(kind { try KeyFile(bytes: bin, options: KeyFileOptions(verify: false, progress: { _, _ in false })) } == .cancelled)
    }
}
