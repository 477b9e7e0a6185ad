import CCrypto

/// The digests an ECDSA signature can be made over (key files name theirs;
/// ES256 JWTs use SHA-256).
package enum DigestAlgorithm: Sendable, CaseIterable {
    case sha256, sha512

    /// From SignatureInfo.signature_algorithm: the ECDSA OIDs, or the string
    /// very early files carry instead.
    package init?(signatureAlgorithm: String?) {
        switch signatureAlgorithm {
        case "1.2.840.10045.4.3.2", "ECDSA p-256 SHA-256": self = .sha256
        case "1.2.840.10045.4.3.4": self = .sha512
        default: return nil
        }
    }

    package var md: OpaquePointer? {
        switch self {
        case .sha256: return EVP_sha256()
        case .sha512: return EVP_sha512()
        }
    }

    package func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_Digest(bytes.baseAddress, bytes.count, &out, &length, md, nil) == 1 else { return nil }
        return Array(out.prefix(Int(length)))
    }
}
