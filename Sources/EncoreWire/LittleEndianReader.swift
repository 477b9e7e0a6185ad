import EncoreSupport

/// Bounds-checked little-endian reads from untrusted bytes. Every read
/// throws `.zipTruncated` instead of reading past the end.
package struct LittleEndianReader {
    package let bytes: UnsafeRawBufferPointer

    package func u16(at offset: Int) throws -> UInt16 {
        try check(offset, 2)
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    package func u32(at offset: Int) throws -> UInt32 {
        try check(offset, 4)
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    package func slice(at offset: Int, count: Int) throws -> UnsafeRawBufferPointer {
        try check(offset, count)
        return UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + count])
    }

    private func check(_ offset: Int, _ count: Int) throws {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw EncoreError(.zipTruncated, "zip structure at offset \(offset) runs past the end of the input (\(bytes.count) bytes)")
        }
    }
}
