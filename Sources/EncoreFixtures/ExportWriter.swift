import CEncoreProto
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreWire

/// Writes export.bin and export.sig as a key server does: for tests, the
/// benchmark, demos, and hosts that publish keys themselves.
public enum ExportWriter {
    /// export.bin: the 16-byte header and the TemporaryExposureKeyExport,
    /// packed by protobuf-c (every field of a key set, zeros included).
    public static func exportBin(metadata: ExportMetadata, keys: [ExposureKey], revisedKeys: [ExposureKey] = []) -> [UInt8] {
        written {
            // One block for up to a million keys (the arena mallocs each allocation past it).
            let b = try ProtoBuilder(capacity: 512 + min(keys.count + revisedKeys.count, 1 << 20) * 128)
            let m = try b.message(ekexport__temporary_exposure_key_export__init)
            ProtoBuilder.set(&m.pointee.start_timestamp, &m.pointee.has_start_timestamp, metadata.startTimestamp)
            ProtoBuilder.set(&m.pointee.end_timestamp, &m.pointee.has_end_timestamp, metadata.endTimestamp)
            m.pointee.region = try metadata.region.map(b.string)
            ProtoBuilder.set(&m.pointee.batch_num, &m.pointee.has_batch_num, metadata.batchNum)
            ProtoBuilder.set(&m.pointee.batch_size, &m.pointee.has_batch_size, metadata.batchSize)
            let infos = try metadata.signatureInfos.map { try signatureInfo($0, b) }
            m.pointee.n_signature_infos = infos.count
            m.pointee.signature_infos = try b.list(infos)
            let list = try keys.map { try key($0, b) }, revised = try revisedKeys.map { try key($0, b) }
            m.pointee.n_keys = list.count
            m.pointee.keys = try b.list(list)
            m.pointee.n_revised_keys = revised.count
            m.pointee.revised_keys = try b.list(revised)
            return ExportFormat.header + ProtoBuilder.pack(m)
        }
    }

    /// One TemporaryExposureKey message.
    private static func key(_ k: ExposureKey, _ b: ProtoBuilder) throws -> UnsafeMutablePointer<Ekexport__TemporaryExposureKey> {
        let e = try b.message(ekexport__temporary_exposure_key__init)
        ProtoBuilder.set(&e.pointee.key_data, &e.pointee.has_key_data, try b.bytes(k.keyData.bytes))
        ProtoBuilder.set(&e.pointee.transmission_risk_level, &e.pointee.has_transmission_risk_level, k.transmissionRiskLevel)
        ProtoBuilder.set(&e.pointee.rolling_start_interval_number, &e.pointee.has_rolling_start_interval_number, k.rollingStartIntervalNumber)
        ProtoBuilder.set(&e.pointee.rolling_period, &e.pointee.has_rolling_period, k.rollingPeriod)
        ProtoBuilder.set(&e.pointee.report_type, &e.pointee.has_report_type, k.reportType.rawValue)
        ProtoBuilder.set(&e.pointee.days_since_onset_of_symptoms, &e.pointee.has_days_since_onset_of_symptoms, k.daysSinceOnsetOfSymptoms)
        return e
    }

    private static func signatureInfo(_ i: SignatureInfo, _ b: ProtoBuilder) throws -> UnsafeMutablePointer<Ekexport__SignatureInfo> {
        let e = try b.message(ekexport__signature_info__init)
        e.pointee.app_bundle_id = try i.appBundleID.map(b.string)
        e.pointee.android_package = try i.androidPackage.map(b.string)
        e.pointee.verification_key_version = try i.verificationKeyVersion.map(b.string)
        e.pointee.verification_key_id = try i.verificationKeyID.map(b.string)
        e.pointee.signature_algorithm = try i.signatureAlgorithm.map(b.string)
        return e
    }

    /// export.sig with one signature per (info, DER signature) pair.
    public static func exportSig(_ signatures: [(info: SignatureInfo, batchNum: Int32, batchSize: Int32, der: [UInt8])]) -> [UInt8] {
        written {
            let b = try ProtoBuilder()
            let list = try b.message(ekexport__teksignature_list__init)
            let items = try signatures.map { s in
                let e = try b.message(ekexport__teksignature__init)
                e.pointee.signature_info = try signatureInfo(s.info, b)
                ProtoBuilder.set(&e.pointee.batch_num, &e.pointee.has_batch_num, s.batchNum)
                ProtoBuilder.set(&e.pointee.batch_size, &e.pointee.has_batch_size, s.batchSize)
                ProtoBuilder.set(&e.pointee.signature, &e.pointee.has_signature, try b.bytes(s.der))
                return e
            }
            list.pointee.n_signatures = items.count
            list.pointee.signatures = try b.list(items)
            return ProtoBuilder.pack(list)
        }
    }

    /// The bytes `pack` makes. A fixture writes its caller's own values:
    /// when protobuf-c cannot take them (a string holding a NUL) or memory
    /// runs out, that is the test's mistake, and it stops there.
    package static func written(_ pack: () throws -> [UInt8]) -> [UInt8] {
        do {
            return try pack()
        } catch {
            preconditionFailure("a fixture could not write its protobuf: \(error)")
        }
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
