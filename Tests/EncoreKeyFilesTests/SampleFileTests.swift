import EncoreKeyFiles
import EncoreSupport
import EncoreTestSupport
import Testing

/// The facts of Tests/data/exports (copied from shared/vectors/exports/README.md).
@Suite struct SampleFileTests {
    @Test func googleSampleVerifiesWithKey310() throws {
        let f = try KeyFile(path: TestData.path("exports/google-sample/sample_diagnosis_key_file.zip"),
                            options: KeyFileOptions(trust: TestData.sampleTrust()))
        #expect(f.isZip)
        #expect(f.metadata.region == "US")
        #expect(f.metadata.batchNum == 1 && f.metadata.batchSize == 1)
        #expect(f.metadata.keyCount == 140)
        #expect(f.metadata.revisedKeyCount == 0)
        #expect(f.signature.status == .verified)
        #expect(f.signature.keyID == "310" && f.signature.keyVersion == "v1")
        #expect(f.metadata.signatureInfos.first?.signatureAlgorithm == "1.2.840.10045.4.3.2")
        #expect(try f.keys().count == 140)
    }

    @Test func enServerHasTheTwoListedKeys() throws {
        let f = try KeyFile(path: TestData.path("exports/en-server/testExport-2-records-1-of-1.zip"),
                            options: KeyFileOptions(trust: TestData.sampleTrust()))
        #expect(f.metadata.region == "US")
        #expect(f.signature.status == .verified)
        #expect(f.signature.keyID == "some_id" && f.signature.keyVersion == "1")
        let keys = try f.keys()
        #expect(keys.map(\.rollingPeriod) == [1, 114])
    }

    @Test func contracIsLegacySignedAndUntrustedWithoutItsKey() throws {
        let path = TestData.path("exports/contrac/sample_diagnosis_key_file.zip")
        #expect(throws: EncoreError.self) { try KeyFile(path: path, options: KeyFileOptions(trust: TestData.sampleTrust())) }
        do {
            _ = try KeyFile(path: path, options: KeyFileOptions(trust: TestData.sampleTrust()))
        } catch let e as EncoreError {
            #expect(e.kind == .signatureUntrusted)
        }
        let f = try KeyFile(path: path, options: KeyFileOptions(verify: false))
        #expect(f.metadata.region == "US")
        #expect(f.metadata.keyCount == 110)
        #expect(f.signature.status == .skipped)
        #expect(f.metadata.signatureInfos.first?.androidPackage == "com.google.android.apps.exposurenotification")
    }

    @Test func companionIsUnsignedWithoutMetadata() throws {
        let path = TestData.path("exports/companion/demo_dks.zip")
        do {
            _ = try KeyFile(path: path)
            Issue.record("an unsigned file must be refused while verification is on")
        } catch let e as EncoreError {
            #expect(e.kind == .signatureMissing)
        }
        let f = try KeyFile(path: path, options: KeyFileOptions(verify: false))
        #expect(f.metadata.keyCount == 2392)
        #expect(f.metadata.region == nil)
        #expect(f.metadata.batchNum == nil)
    }

    @Test func bareExportFiles() throws {
        let immuni = try KeyFile(path: TestData.path("exports/immuni/export.bin"), options: KeyFileOptions(verify: false))
        #expect(!immuni.isZip)
        #expect(immuni.metadata.region == "222")
        #expect(immuni.metadata.keyCount == 3)
        #expect(immuni.metadata.signatureInfos.first?.verificationKeyID == "222")
        #expect(immuni.metadata.signatureInfos.first?.verificationKeyVersion == "v2")
        let cpp = try KeyFile(path: TestData.path("exports/google-cpp/export.bin"), options: KeyFileOptions(verify: false))
        #expect(cpp.metadata.region == "US")
        #expect(cpp.metadata.keyCount == 200)
    }
}
