// encore.h section: keyfile, part 1
import CEncoreTypes
import EncoreKeyFiles
import EncoreStorage

/// Creates an empty trust list. Release it with encore_trust_free().
/// Thread safety: a trust list may be used from several threads at once.
@c public func encore_trust_new(_ out: UnsafeMutablePointer<encore_trust_ptr?>?) -> encore_status {
    guarded {
        try output(out, "out") { retainedHandle(TrustList()) }
    }
}

/// Releases a trust list; NULL does nothing. Key files opened with it do not
/// need it any more.
@c public func encore_trust_free(_ trust: encore_trust_ptr?) {
    release(trust)
}

/// Trusts an ECDSA P-256 public key under (key_id, key_version), the names a
/// signature carries (SignatureInfo.verification_key_id/_version). `key` is a
/// SubjectPublicKeyInfo as PEM text, base64 text or DER bytes, of `key_len`
/// bytes. Adding the same id and version again replaces the key.
@c public func encore_trust_add_key(_ trust: encore_trust_ptr?, _ key_id: UnsafePointer<CChar>?, _ key_version: UnsafePointer<CChar>?, _ key: UnsafePointer<UInt8>?, _ key_len: Int) -> encore_status {
    guarded {
        let list = try borrow(trust, as: TrustList.self, "trust")
        let material = try buffer(key, key_len, "key")
        try list.add(id: text(key_id, "key_id"), version: text(key_version, "key_version"), material: Array(material))
    }
}

/// Writes the number of keys in a trust list to *count.
@c public func encore_trust_count(_ trust: encore_trust_ptr?, _ count: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let list = try borrow(trust, as: TrustList.self, "trust")
        try required(count, "count").pointee = list.count
    }
}
