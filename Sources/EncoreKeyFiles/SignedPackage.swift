import EncoreCrypto
import EncoreSupport
import EncoreWire

/// A signed package whose export.bin is not a key export (CWA's app
/// configuration, trace warning packages): the zip and export.sig of a key
/// file, checked the same way (limits, members, CRCs, a signature by a
/// trusted key over the whole export.bin), its export.bin handed out as the
/// payload. An empty input is an empty package (CWA publishes "no warnings"
/// as Content-Length 0): no payload, nothing to verify.
public struct SignedPackage: Sendable {
    public let payload: [UInt8]
    public let signature: SignatureOutcome

    public init(bytes: [UInt8], trust: TrustList?, verify: Bool = true, limits: ZipLimits = .default) throws {
        guard !bytes.isEmpty else {
            payload = []
            signature = SignatureOutcome(status: verify ? .verified : .skipped, reason: "an empty package carries nothing to sign")
            return
        }
        let archive = try bytes.withUnsafeBytes { try KeyFileArchive.extract($0, limits: limits) }
        let signatures = try archive.exportSig.map { try SignatureFile.parse($0.buffer) } ?? []
        if verify {
            // The batch rule as key files have it; these packages are batch 1 of 1.
            var metadata = ExportMetadata()
            metadata.batchNum = signatures.first?.batchNum ?? 1
            metadata.batchSize = signatures.first?.batchSize ?? 1
            let outcome = try SignatureVerifier.verify(exportBin: archive.exportBin.buffer, metadata: metadata,
                                                       signatures: signatures, trust: trust)
            if let error = outcome.error { throw error }
            signature = outcome
        } else {
            signature = SignatureOutcome(status: .skipped, reason: "verification was turned off")
        }
        payload = Array(archive.exportBin.buffer)
    }
}
