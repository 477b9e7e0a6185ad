import CCrypto

/// Comparisons whose time does not depend on where the bytes differ (MACs).
package enum ConstantTime {
    package static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
    }
}
