import EncoreCrypto
import EncoreSupport
import EncoreWire

/// How a key file's signature turned out.
public struct SignatureOutcome: Equatable, Sendable {
    public enum Status: Sendable, Equatable {
        case verified, unsigned, untrusted, invalid, skipped
    }

    public var status: Status
    /// The key that verified the file, or else the first signature's key.
    public var keyID: String?
    public var keyVersion: String?
    /// Why the file is not verified (empty when it is).
    public var reason: String

    public init(status: Status, keyID: String? = nil, keyVersion: String? = nil, reason: String = "") {
        self.status = status
        self.keyID = keyID
        self.keyVersion = keyVersion
        self.reason = reason
    }

    /// The error that refuses a file with this outcome when verification is
    /// required; nil when the file may be used.
    public var error: EncoreError? {
        switch status {
        case .verified, .skipped: return nil
        case .unsigned: return EncoreError(.signatureMissing, "key file is not signed: \(reason)")
        case .untrusted: return EncoreError(.signatureUntrusted, "key file is not trusted: \(reason)")
        case .invalid: return EncoreError(.signatureInvalid, "key file signature is invalid: \(reason)")
        }
    }
}

/// Google's key file rules: a file is trusted when at least one signature
/// made with a trusted key verifies over the whole export.bin.
package enum SignatureVerifier {
    package static let maxBatchSize: Int32 = 1_000_000

    /// The outcome without failing: a malformed export.sig or broken batch
    /// rules make the outcome `.invalid` instead of throwing.
    package static func report(exportBin: UnsafeRawBufferPointer, metadata: ExportMetadata, sig: OwnedBytes?, trust: TrustList?) -> SignatureOutcome {
        do {
            let signatures = try sig.map { try SignatureFile.parse($0.buffer) } ?? []
            return try verify(exportBin: exportBin, metadata: metadata, signatures: signatures, trust: trust)
        } catch let e as EncoreError {
            return SignatureOutcome(status: .invalid, reason: e.message)
        } catch {
            return SignatureOutcome(status: .invalid, reason: "\(error)")
        }
    }

    /// `sha256`: export.bin's SHA-256 digest, when the caller has it.
    package static func verify(exportBin: UnsafeRawBufferPointer, metadata: ExportMetadata,
                       signatures: [FileSignature], trust: TrustList?, sha256: [UInt8]? = nil) throws -> SignatureOutcome {
        guard let first = signatures.first else {
            return SignatureOutcome(status: .unsigned, reason: "the file carries no signature")
        }
        try checkBatch(metadata: metadata, signatures: signatures)
        var digests: [DigestAlgorithm: [UInt8]] = [:]
        digests[.sha256] = sha256
        var failure: SignatureOutcome?
        for s in signatures {
            let id = s.info.verificationKeyID ?? "", version = s.info.verificationKeyVersion ?? ""
            guard let key = trust?.key(id: id, version: version) else { continue }
            let outcome = { (reason: String) in
                SignatureOutcome(status: .invalid, keyID: id, keyVersion: version, reason: reason)
            }
            guard let algorithm = DigestAlgorithm(signatureAlgorithm: s.info.signatureAlgorithm) else {
                failure = failure ?? outcome("unsupported signature algorithm \(s.info.signatureAlgorithm ?? "(none)")")
                continue
            }
            guard ECDSASignature.isStrictDER(s.der) else {
                failure = failure ?? outcome("the signature by \(describe(s.info)) is not a strict DER ECDSA signature")
                continue
            }
            if digests[algorithm] == nil { digests[algorithm] = algorithm.digest(exportBin) }
            guard let digest = digests[algorithm] else {
                throw EncoreError(.internalError, "libcrypto could not hash export.bin")
            }
            if key.verify(signature: s.der, digest: digest, algorithm: algorithm) {
                return SignatureOutcome(status: .verified, keyID: id, keyVersion: version)
            }
            failure = failure ?? outcome("the signature by \(describe(s.info)) does not match export.bin")
        }
        return failure ?? SignatureOutcome(
            status: .untrusted, keyID: first.info.verificationKeyID, keyVersion: first.info.verificationKeyVersion,
            reason: "signed only by keys that are not trusted (\(describe(first.info)))")
    }

    /// The key a signature names, the one way encore writes it anywhere:
    /// `key id "310", version "v1"` (an empty one as "", an absent one as
    /// (none)).
    public static func describe(keyID: String?, keyVersion: String?) -> String {
        "key id \(keyID.map { "\"\($0)\"" } ?? "(none)"), version \(keyVersion.map { "\"\($0)\"" } ?? "(none)")"
    }

    package static func describe(_ info: SignatureInfo) -> String {
        describe(keyID: info.verificationKeyID, keyVersion: info.verificationKeyVersion)
    }

    /// 1 ≤ batch_num ≤ batch_size ≤ 1 000 000 in export.bin, and each
    /// signature that names a batch names the same one.
    package static func checkBatch(metadata: ExportMetadata, signatures: [FileSignature]) throws {
        let num = metadata.batchNum ?? 0, size = metadata.batchSize ?? 0
        guard num >= 1, num <= size, size <= maxBatchSize else {
            throw EncoreError(.batch, "batch \(num) of \(size) breaks the rule 1 ≤ batch_num ≤ batch_size ≤ \(maxBatchSize)")
        }
        for s in signatures {
            if let n = s.batchNum, n != num || (s.batchSize ?? size) != size {
                throw EncoreError(.batch, "a signature names batch \(n) of \(s.batchSize ?? size), export.bin batch \(num) of \(size)")
            }
        }
    }
}
