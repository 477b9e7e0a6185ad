import EncoreCrypto
import EncoreKeyFiles

/// Builds key files for tests: deterministic keys, a signer, a trust list.
package enum Fixtures {
    package static func key(_ i: Int, period: Int32 = 144, reportType: ReportType = .confirmedTest, dsos: Int32? = nil) -> ExposureKey {
        var bytes = [UInt8](repeating: 0, count: 16)
        var x = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        for j in 0 ..< 16 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            bytes[j] = UInt8(truncatingIfNeeded: x)
        }
        return ExposureKey(keyData: KeyData(bytes)!, transmissionRiskLevel: Int32(i % 9),
                           rollingStartIntervalNumber: 2_650_000 + Int32(i % 14) * 144, rollingPeriod: period,
                           reportType: reportType, daysSinceOnsetOfSymptoms: dsos)
    }

    package static func metadata(batchNum: Int32 = 1, batchSize: Int32 = 1) -> ExportMetadata {
        var m = ExportMetadata()
        m.startTimestamp = 1_600_000_000
        m.endTimestamp = 1_600_086_400
        m.region = "DE"
        m.batchNum = batchNum
        m.batchSize = batchSize
        return m
    }

    package static func info(id: String = "test", version: String = "v1", algorithm: String = "1.2.840.10045.4.3.2") -> SignatureInfo {
        SignatureInfo(appBundleID: "org.encore.test", verificationKeyVersion: version, verificationKeyID: id, signatureAlgorithm: algorithm)
    }

    package static func trust(_ signer: PrivateKey, id: String = "test", version: String = "v1") throws -> TrustList {
        let t = TrustList()
        try t.add(id: id, version: version, material: signer.publicKeyPEM())
        return t
    }
}
