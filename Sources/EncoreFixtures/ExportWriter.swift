import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncorePush
import EncoreSupport
import EncoreTestResults
import EncoreWire

/// Writes export.bin and export.sig as a key server does: for tests, the
/// benchmark, demos, and hosts that publish keys themselves.
public enum ExportWriter {
    /// export.bin: the 16-byte header and the TemporaryExposureKeyExport.
    public static func exportBin(metadata: ExportMetadata, keys: [ExposureKey], revisedKeys: [ExposureKey] = []) -> [UInt8] {
        var e = ProtoEncoder(reservingCapacity: ExportFormat.header.count + 64 + (keys.count + revisedKeys.count) * 32)
        if let v = metadata.startTimestamp { e.fixed64(1, v) }
        if let v = metadata.endTimestamp { e.fixed64(2, v) }
        e.string(3, metadata.region)
        if let v = metadata.batchNum { e.int32(4, v) }
        if let v = metadata.batchSize { e.int32(5, v) }
        for info in metadata.signatureInfos { e.lengthDelimited(6, signatureInfo(info)) }
        for k in keys { e.lengthDelimited(7, key(k)) }
        for k in revisedKeys { e.lengthDelimited(8, key(k)) }
        return ExportFormat.header + e.bytes
    }

    /// One TemporaryExposureKey message.
    package static func key(_ k: ExposureKey) -> [UInt8] {
        var e = ProtoEncoder(reservingCapacity: 32)
        e.lengthDelimited(1, k.keyData.bytes)
        e.int32(2, k.transmissionRiskLevel)
        e.int32(3, k.rollingStartIntervalNumber)
        e.int32(4, k.rollingPeriod)
        e.int32(5, k.reportType.rawValue)
        if let d = k.daysSinceOnsetOfSymptoms { e.sint32(6, d) }
        return e.bytes
    }

    package static func signatureInfo(_ i: SignatureInfo) -> [UInt8] {
        var e = ProtoEncoder()
        e.string(1, i.appBundleID)
        e.string(2, i.androidPackage)
        e.string(3, i.verificationKeyVersion)
        e.string(4, i.verificationKeyID)
        e.string(5, i.signatureAlgorithm)
        return e.bytes
    }

    /// export.sig with one signature per (info, DER signature) pair.
    public static func exportSig(_ signatures: [(info: SignatureInfo, batchNum: Int32, batchSize: Int32, der: [UInt8])]) -> [UInt8] {
        var list = ProtoEncoder()
        for s in signatures {
            var e = ProtoEncoder()
            e.lengthDelimited(1, signatureInfo(s.info))
            e.int32(2, s.batchNum)
            e.int32(3, s.batchSize)
            e.lengthDelimited(4, s.der)
            list.lengthDelimited(1, e.bytes)
        }
        return list.bytes
    }

    /// A complete signed key file (zip with export.bin and export.sig),
    /// signed with `signer` under `info`'s key id and version.
    public static func signedKeyFile(metadata: ExportMetadata, keys: [ExposureKey], revisedKeys: [ExposureKey] = [],
                                     signer: PrivateKey, info: SignatureInfo, compress: Bool = true) throws -> [UInt8] {
        var meta = metadata
        if meta.signatureInfos.isEmpty { meta.signatureInfos = [info] }
        let bin = exportBin(metadata: meta, keys: keys, revisedKeys: revisedKeys)
        let algorithm = DigestAlgorithm(signatureAlgorithm: info.signatureAlgorithm) ?? .sha256
        let der = try bin.withUnsafeBytes { try signer.sign($0, algorithm: algorithm) }
        let sig = exportSig([(info, meta.batchNum ?? 1, meta.batchSize ?? 1, der)])
        return try ZipWriter.archive([
            ZipWriter.Member(name: "export.bin", data: bin, compress: compress),
            ZipWriter.Member(name: "export.sig", data: sig, compress: false),
        ])
    }
}
