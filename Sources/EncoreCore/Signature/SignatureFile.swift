import CEncoreProto
import CProtobufC

/// One TEKSignature of export.sig.
struct FileSignature: Sendable {
    var info: SignatureInfo
    var batchNum: Int32?
    var batchSize: Int32?
    var der: [UInt8]
}

/// export.sig: a TEKSignatureList, decoded with protobuf-c.
enum SignatureFile {
    /// More signatures than any real file carries; each one costs an ECDSA
    /// verification, so a hostile file may not ask for millions.
    static let maxSignatures = 64

    static func parse(_ bytes: UnsafeRawBufferPointer) throws -> [FileSignature] {
        guard let list = ekexport__teksignature_list__unpack(
            nil, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        else { throw EncoreError(.signatureMalformed, "export.sig is not a valid TEKSignatureList") }
        defer { ekexport__teksignature_list__free_unpacked(list, nil) }
        let count = list.pointee.n_signatures
        guard count <= maxSignatures else {
            throw EncoreError(.signatureMalformed, "export.sig holds \(count) signatures; at most \(maxSignatures) are accepted")
        }
        var out: [FileSignature] = []
        for i in 0 ..< count {
            guard let s = list.pointee.signatures?[i]?.pointee else { continue }
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
