import CEncoreProto
// CEncoreShim's header includes protobuf-c.h: the compiler counts the fields of
// its ProtobufCBinaryData (`signature.data`) as CEncoreShim's (MemberImportVisibility).
import CEncoreShim
import CProtobufC
import EncoreCrypto
import EncoreStorage
import EncoreSupport

/// One TEKSignature of export.sig.
package struct FileSignature: Sendable {
    package var info: SignatureInfo
    package var batchNum: Int32?
    package var batchSize: Int32?
    package var der: [UInt8]
}

/// export.sig: a TEKSignatureList, decoded with protobuf-c.
package enum SignatureFile {
    /// More signatures than any real file carries; each one costs an ECDSA
    /// verification, so a hostile file may not ask for millions.
    package static let maxSignatures = 64

    /// What decoding export.sig may allocate: room for the signatures a
    /// file may hold, not for millions of empty ones (protobuf-c unpacks
    /// every one before they could be counted).
    package static let decodeLimit = 1 << 20

    package static func parse(_ bytes: UnsafeRawBufferPointer) throws -> [FileSignature] {
        let decoder = try MessageDecoder(limit: decodeLimit)
        let parsed = try decoder.unpack({
            ekexport__teksignature_list__unpack($0, bytes.count, MessageDecoder.base(bytes))
        }) { try signatures(in: $0) }
        guard let parsed else {
            throw EncoreError(.signatureMalformed, "export.sig is not a valid TEKSignatureList (or needs more than \(decodeLimit) bytes to decode)")
        }
        return parsed
    }

    private static func signatures(in list: Ekexport__TEKSignatureList) throws -> [FileSignature] {
        let count = list.n_signatures
        guard count <= maxSignatures else {
            throw EncoreError(.signatureMalformed, "export.sig holds \(count) signatures; at most \(maxSignatures) are accepted")
        }
        var out: [FileSignature] = []
        for i in 0 ..< count {
            guard let s = list.signatures?[i]?.pointee else { continue }
            let der: [UInt8]
            if s.has_signature != 0, let data = s.signature.data {
                der = Array(UnsafeBufferPointer(start: data, count: s.signature.len))
            } else {
                der = []
            }
            out.append(FileSignature(
                info: s.signature_info.map { SignatureInfo($0.pointee) } ?? SignatureInfo(),
                batchNum: s.has_batch_num != 0 ? s.batch_num : nil,
                batchSize: s.has_batch_size != 0 ? s.batch_size : nil,
                der: der))
        }
        return out
    }
}
