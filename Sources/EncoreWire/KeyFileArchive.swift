import CEncoreShim
import CZlib
import EncoreSupport

/// The members of a key-file zip: exactly `export.bin` and optionally
/// `export.sig`, each decompressed, size-checked and CRC-checked (export.bin's
/// CRC perhaps later: see `deferBinCRC`).
package struct KeyFileArchive {
    package var exportBin: OwnedBytes
    package var exportSig: OwnedBytes?
    /// export.bin's CRC check when it was deferred.
    package var binCRC: CRCCheck?

    /// A member's CRC-32 against what the directory says.
    package struct CRCCheck {
        package let name: String
        package let expected: UInt32

        package func check(_ bytes: UnsafeRawBufferPointer) throws {
            let crc = crc32Of(bytes)
            guard crc == expected else {
                throw EncoreError(.zipCRC, "\(name): CRC-32 is \(hex32(crc)), the directory says \(hex32(expected))")
            }
        }
    }

    package static let binName = Array("export.bin".utf8)
    package static let sigName = Array("export.sig".utf8)

    /// With `deferBinCRC` export.bin's CRC is left to the caller (binCRC):
    /// one whose signature will be verified needs it only when that fails,
    /// to report damage as a CRC error; a signature that verifies proves
    /// the bytes already, and the CRC would cost a pass over them.
    package static func extract(_ zip: UnsafeRawBufferPointer, limits: ZipLimits, deferBinCRC: Bool = false, pool: BufferPool? = nil) throws -> KeyFileArchive {
        let (entries, directoryOffset) = try ZipDirectory.read(zip)
        let bin = try checkMembers(entries)
        try checkLimits(entries, limits)
        let sig = entries.first { $0.name == sigName }
        let binCRC = CRCCheck(name: bin.nameText, expected: bin.crc32)
        let binBytes = try extract(bin, from: zip, before: directoryOffset, pool: pool)
        if !deferBinCRC { try binCRC.check(binBytes.buffer) }
        let sigBytes: OwnedBytes?
        do {
            sigBytes = try sig.map { e in
                let bytes = try extract(e, from: zip, before: directoryOffset)
                try CRCCheck(name: e.nameText, expected: e.crc32).check(bytes.buffer)
                return bytes
            }
        } catch {
            // export.bin's damage is reported first, as without deferral.
            if deferBinCRC { try binCRC.check(binBytes.buffer) }
            throw error
        }
        return KeyFileArchive(exportBin: binBytes, exportSig: sigBytes, binCRC: deferBinCRC ? binCRC : nil)
    }

    /// Exactly export.bin and at most one export.sig; returns export.bin.
    private static func checkMembers(_ entries: [ZipEntry]) throws -> ZipEntry {
        var seen: Set<[UInt8]> = []
        for e in entries {
            guard e.name == binName || e.name == sigName else {
                throw EncoreError(.zipMembers, "unexpected zip member \"\(e.nameText)\": a key file has export.bin and optionally export.sig")
            }
            guard seen.insert(e.name).inserted else {
                throw EncoreError(.zipMembers, "zip member \(e.nameText) appears twice")
            }
        }
        guard let bin = entries.first(where: { $0.name == binName }) else {
            throw EncoreError(.zipMembers, "zip has no export.bin member")
        }
        return bin
    }

    private static func checkLimits(_ entries: [ZipEntry], _ limits: ZipLimits) throws {
        var total: UInt64 = 0
        for e in entries {
            guard e.uncompressedSize <= limits.maxMemberSize else {
                throw EncoreError(.zipLimit, "\(e.nameText) declares \(e.uncompressedSize) bytes, more than the member limit of \(limits.maxMemberSize)")
            }
            total += e.uncompressedSize // both ≤ UInt32.max: cannot overflow
            guard total <= limits.maxTotalSize else {
                throw EncoreError(.zipLimit, "members declare \(total) bytes in all, more than the total limit of \(limits.maxTotalSize)")
            }
            if limits.maxRatio > 0, e.uncompressedSize > ZipLimits.ratioFloor,
               e.uncompressedSize / max(e.compressedSize, 1) >= UInt64(limits.maxRatio) {
                throw EncoreError(.zipLimit, "\(e.nameText) would expand \(e.compressedSize) bytes to \(e.uncompressedSize), a ratio over the limit of \(limits.maxRatio)")
            }
        }
    }

    private static func extract(_ e: ZipEntry, from zip: UnsafeRawBufferPointer, before directoryOffset: Int, pool: BufferPool? = nil) throws -> OwnedBytes {
        if e.flags & 0x0001 != 0 || e.flags & 0x0040 != 0 {
            throw EncoreError(.zipUnsupported, "\(e.nameText) is encrypted")
        }
        guard e.method == 0 || e.method == 8 else {
            throw EncoreError(.zipUnsupported, "\(e.nameText) uses compression method \(e.method); only stored (0) and deflate (8) are supported")
        }
        let r = LittleEndianReader(bytes: zip)
        let local = e.localHeaderOffset
        guard try r.u32(at: local) == ZipDirectory.localHeaderSignature else {
            throw EncoreError(.zipCorrupt, "\(e.nameText): no local header at offset \(local)")
        }
        let localMethod = try r.u16(at: local + 8)
        let nameLength = Int(try r.u16(at: local + 26)), extraLength = Int(try r.u16(at: local + 28))
        guard localMethod == e.method, Array(try r.slice(at: local + 30, count: nameLength)) == e.name else {
            throw EncoreError(.zipCorrupt, "\(e.nameText): local header disagrees with the central directory")
        }
        let dataOffset = local + 30 + nameLength + extraLength
        let compressedCount = Int(e.compressedSize)
        let data = try r.slice(at: dataOffset, count: compressedCount)
        guard dataOffset + compressedCount <= directoryOffset else {
            throw EncoreError(.zipCorrupt, "\(e.nameText): data overlaps the central directory")
        }

        let out = try OwnedBytes(uninitializedCount: Int(e.uncompressedSize), pool: pool)
        if e.method == 0 {
            guard e.compressedSize == e.uncompressedSize else {
                throw EncoreError(.zipCorrupt, "\(e.nameText) is stored but its sizes differ (\(e.compressedSize) vs \(e.uncompressedSize))")
            }
            if let src = data.baseAddress, let dst = out.mutableBuffer.baseAddress, compressedCount > 0 {
                dst.copyMemory(from: src, byteCount: compressedCount)
            }
        } else {
            try Inflater.inflate(data, into: out.mutableBuffer, name: e.nameText)
        }
        return out
    }

    /// Carry-less multiplication for the bulk where the CPU has it, zlib for the rest.
    package static func crc32Of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let base = bytes.baseAddress?.assumingMemoryBound(to: Bytef.self)
        var bulk: UInt32 = 0
        var offset = enc_crc32_bulk(&bulk, base, bytes.count)
        var crc = uLong(bulk)
        while offset < bytes.count {
            let n = min(bytes.count - offset, 1 << 30)
            crc = CZlib.crc32(crc, base.map { $0 + offset }, uInt(n))
            offset += n
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    private static func hex32(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 8 - s.count)) + s
    }
}
