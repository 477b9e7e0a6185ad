import EncoreSupport

/// One member as the central directory (authoritative) describes it.
package struct ZipEntry: Equatable {
    package var name: [UInt8]
    package var method: UInt16
    package var flags: UInt16
    package var crc32: UInt32
    package var compressedSize: UInt64
    package var uncompressedSize: UInt64
    package var localHeaderOffset: Int

    package var nameText: String { String(decoding: name, as: UTF8.self) }
}

/// Reads the end-of-central-directory record and the central directory.
package enum ZipDirectory {
    package static let localHeaderSignature: UInt32 = 0x0403_4b50
    package static let centralHeaderSignature: UInt32 = 0x0201_4b50
    package static let endSignature: UInt32 = 0x0605_4b50
    package static let zip64LocatorSignature: UInt32 = 0x0706_4b50
    /// More entries than this cannot be a key file; refuse before reading them.
    package static let maxEntries = 16

    /// Whether the bytes begin like a zip archive.
    package static func looksLikeZip(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && (try? LittleEndianReader(bytes: bytes).u32(at: 0)) == localHeaderSignature
    }

    /// The entries of the central directory, plus the offset where it starts
    /// (member data must lie before it).
    package static func read(_ bytes: UnsafeRawBufferPointer) throws -> (entries: [ZipEntry], directoryOffset: Int) {
        let r = LittleEndianReader(bytes: bytes)
        let eocd = try findEnd(r)
        let disk = try r.u16(at: eocd + 4), directoryDisk = try r.u16(at: eocd + 6)
        let entriesHere = try r.u16(at: eocd + 8), entriesTotal = try r.u16(at: eocd + 10)
        let directorySize = try r.u32(at: eocd + 12), directoryOffset32 = try r.u32(at: eocd + 16)

        if eocd >= 20, (try? r.u32(at: eocd - 20)) == zip64LocatorSignature {
            throw EncoreError(.zipUnsupported, "zip64 archives are not supported (key files are far smaller than 4 GiB)")
        }
        if entriesTotal == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset32 == 0xFFFF_FFFF {
            throw EncoreError(.zipUnsupported, "zip64 archives are not supported (key files are far smaller than 4 GiB)")
        }
        guard disk == 0, directoryDisk == 0, entriesHere == entriesTotal else {
            throw EncoreError(.zipUnsupported, "multi-disk zip archives are not supported")
        }
        guard Int(entriesTotal) <= maxEntries else {
            throw EncoreError(.zipMembers, "zip has \(entriesTotal) members; a key file has export.bin and optionally export.sig")
        }
        let directoryOffset = Int(directoryOffset32)
        guard directoryOffset <= eocd, Int(directorySize) <= eocd - directoryOffset else {
            throw EncoreError(.zipCorrupt, "central directory (offset \(directoryOffset), \(directorySize) bytes) overlaps the end record at \(eocd)")
        }
        let directoryEnd = directoryOffset + Int(directorySize)

        var entries: [ZipEntry] = []
        var p = directoryOffset
        for index in 0 ..< Int(entriesTotal) {
            guard p <= directoryEnd, directoryEnd - p >= 46 else {
                throw EncoreError(.zipCorrupt, "central directory entry \(index) runs past the directory's declared size")
            }
            guard try r.u32(at: p) == centralHeaderSignature else {
                throw EncoreError(.zipCorrupt, "bad signature of central directory entry \(index) at offset \(p)")
            }
            let flags = try r.u16(at: p + 8), method = try r.u16(at: p + 10)
            let crc = try r.u32(at: p + 16)
            let compressed = try r.u32(at: p + 20), uncompressed = try r.u32(at: p + 24)
            let nameLength = Int(try r.u16(at: p + 28)), extraLength = Int(try r.u16(at: p + 30))
            let commentLength = Int(try r.u16(at: p + 32)), startDisk = try r.u16(at: p + 34)
            let localOffset = try r.u32(at: p + 42)
            let name = Array(try r.slice(at: p + 46, count: nameLength))
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF || startDisk == 0xFFFF {
                throw EncoreError(.zipUnsupported, "zip64 member \(String(decoding: name, as: UTF8.self)) is not supported")
            }
            entries.append(ZipEntry(
                name: name, method: method, flags: flags, crc32: crc,
                compressedSize: UInt64(compressed), uncompressedSize: UInt64(uncompressed),
                localHeaderOffset: Int(localOffset)))
            p += 46 + nameLength + extraLength + commentLength
        }
        guard p <= directoryEnd else {
            throw EncoreError(.zipCorrupt, "central directory entries run past the directory's declared size")
        }
        return (entries, directoryOffset)
    }

    /// The offset of the end-of-central-directory record: the last one whose
    /// comment ends exactly at the end of the input.
    private static func findEnd(_ r: LittleEndianReader) throws -> Int {
        let count = r.bytes.count
        guard count >= 22 else {
            throw EncoreError(.zipTruncated, "zip of \(count) bytes is too short for its end record")
        }
        let lowest = max(0, count - 22 - 0xFFFF)
        var p = count - 22
        while p >= lowest {
            if try r.u32(at: p) == endSignature, Int(try r.u16(at: p + 20)) == count - 22 - p {
                return p
            }
            p -= 1
        }
        throw EncoreError(.zipTruncated, "no end-of-central-directory record: the zip is truncated")
    }
}
