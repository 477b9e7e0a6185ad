import CEncorePairing
import EncoreCrypto
import EncoreSupport

/// CrowdNotifier's identity-based encryption (Boneh–Franklin FullIdent
/// over BLS12-381 with mcl's hashes and serialisations).
public enum CrowdNotifierIBE {
    /// Encrypts `message` to `identity` under the venue key `mpk`.
    /// `random` gives x (32 bytes) and the nonce (24 bytes).
    package static func encrypt(mpk: enc_g2, identity: [UInt8], message: [UInt8],
                                random: (Int) throws -> [UInt8] = SecureRandom.bytes) throws -> CrowdNotifierCiphertext {
        let x = try random(32), nonce = try random(CrowdNotifierCrypto.nonceBytes)
        guard x.count == 32, nonce.count == CrowdNotifierCrypto.nonceBytes else { throw EncoreError(.internalError, "the random source gave too few bytes") }
        let r = BLS.hashToFr(x + identity + message)
        let c1 = BLS.serialize(BLS.g2Generator(times: r))
        let mask = Digest.sha256(BLS.pairing(BLS.hashToG1(identity), mpk, power: r))
        let c2 = zip(x, mask).map { $0 ^ $1 }
        let c3 = try CrowdNotifierCrypto.seal(message, nonce: nonce, key: Digest.sha256(x))
        return CrowdNotifierCiphertext(c1: c1, c2: c2, c3: c3, nonce: nonce)
    }

    /// What can stop a decryption, each a non-match.
    package enum Failure: Error, Equatable {
        /// c1 or c2 of the wrong size, c1 not a point of G2.
        case ciphertext
        /// The box does not open with the derived x: another identity's key.
        case box
        /// The box opened but c1 ≠ g2^HashToFr(x' ‖ id ‖ m').
        case c1Check
    }

    /// Decrypts with sk_id (a validated non-zero point of G1): the message,
    /// or why not. One pairing; the c1 re-check (one G2 multiplication)
    /// only when the box opened.
    package static func decrypt(secretKey sk: enc_g1, identity: [UInt8], _ c: CrowdNotifierCiphertext) -> Result<[UInt8], Failure> {
        guard case .success(let c1) = BLS.g2Nonzero(c.c1) else { return .failure(.ciphertext) }
        return decrypt(secretKey: sk, identity: identity, c, c1: c1)
    }

    /// The same with c1 parsed already (matching parses each stored hour's
    /// c1 once, not once per trace key).
    package static func decrypt(secretKey sk: enc_g1, identity: [UInt8], _ c: CrowdNotifierCiphertext, c1: enc_g2) -> Result<[UInt8], Failure> {
        guard c.c2.count == 32 else { return .failure(.ciphertext) }
        return open(identity: identity, c, pairing: BLS.pairing(sk, c1))
    }

    /// The same with e(sk, c1) computed already (matching pairs a trace
    /// key with all prepared hours of its day at once: BLS.pairings).
    package static func decrypt(pairing: [UInt8], identity: [UInt8], _ c: CrowdNotifierCiphertext) -> Result<[UInt8], Failure> {
        guard c.c2.count == 32 else { return .failure(.ciphertext) }
        return open(identity: identity, c, pairing: pairing)
    }

    /// The rest of a decryption, given e(sk, c1) serialised.
    private static func open(identity: [UInt8], _ c: CrowdNotifierCiphertext, pairing: [UInt8]) -> Result<[UInt8], Failure> {
        let mask = Digest.sha256(pairing)
        let x = zip(c.c2, mask).map { $0 ^ $1 }
        guard let m = CrowdNotifierCrypto.open(c.c3, nonce: c.nonce, key: Digest.sha256(x)) else { return .failure(.box) }
        let r = BLS.hashToFr(x + identity + m)
        guard BLS.serialize(BLS.g2Generator(times: r)) == c.c1 else { return .failure(.c1Check) }
        return .success(m)
    }
}

extension CrowdNotifierIBE {
    /// Encryption under a public key's bytes (validated: a non-zero point of G2).
    public static func encrypt(publicKey: [UInt8], identity: [UInt8], message: [UInt8]) throws -> CrowdNotifierCiphertext {
        switch BLS.g2Nonzero(publicKey) {
        case .failure(let e): throw EncoreError(.cnPublicKey, "the public key \(e == .length ? "is not 96 bytes" : e.text)")
        case .success(let mpk): return try encrypt(mpk: mpk, identity: identity, message: message)
        }
    }

    /// Decryption with a secret key's bytes: .traceKeyInvalid when they are
    /// not a non-zero point of G1, .cnNoMatch when the key does not open
    /// the ciphertext (or the c1 re-check fails).
    public static func decrypt(secretKey: [UInt8], identity: [UInt8], _ c: CrowdNotifierCiphertext) throws -> [UInt8] {
        switch BLS.g1Nonzero(secretKey) {
        case .failure(let e): throw EncoreError(.traceKeyInvalid, "the trace key's secret key \(e == .length ? "is not 48 bytes" : e.text)")
        case .success(let sk):
            switch decrypt(secretKey: sk, identity: identity, c) {
            case .success(let m): return m
            case .failure(.ciphertext): throw EncoreError(.cnNoMatch, "the ciphertext's c1 is not a point of G2, or c2 is not 32 bytes")
            case .failure(.box): throw EncoreError(.cnNoMatch, "the key does not open the ciphertext")
            case .failure(.c1Check): throw EncoreError(.cnNoMatch, "the ciphertext opened but its c1 is not g2^HashToFr(x' || id || m')")
            }
        }
    }
}
