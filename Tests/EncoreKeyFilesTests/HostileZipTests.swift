import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import CZlib
import Glibc
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Hand-built hostile zip archives: every defect of the container must map
/// to its own error kind, and no declared size may make the reader allocate
/// or inflate more than the limits allow.
@Suite struct HostileZipTests {
    static let bin = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: (0 ..< 5).map { Fixtures.key($0) })
    static let sig: [UInt8] = ExportWriter.exportSig([(Fixtures.info(), 1, 1, [0x30, 0x00])])

    private func open(_ zip: [UInt8], limits: ZipLimits = .default) -> EncoreError.Kind? {
        kind { try KeyFile(bytes: zip, options: KeyFileOptions(verify: false, limits: limits)) }
    }

    // MARK: The builder itself

    @Test func builderMakesValidZips() throws {
        let lists: [[HostileZip.Entry]] = [[.stored("export.bin", Self.bin)],
                                           [.deflated("export.bin", Self.bin), .stored("export.sig", Self.sig)],
                                           [.stored("export.sig", Self.sig), .deflated("export.bin", Self.bin)]]
        for entries in lists {
            let zip = HostileZip(entries).bytes()
            let f = try KeyFile(bytes: zip, options: KeyFileOptions(verify: false))
            #expect(try f.keys().count == 5)
            // The same result as ZipWriter's archives.
            #expect(f.metadata == (try KeyFile(bytes: ZipWriter.archive([.init(name: "export.bin", data: Self.bin)]),
                                               options: KeyFileOptions(verify: false))).metadata)
        }
    }

    // MARK: CRC, methods, flags, zip64

    @Test func crcMismatch() {
        for entry in [HostileZip.Entry.stored("export.bin", Self.bin), .deflated("export.bin", Self.bin)] {
            var e = entry
            e.crc ^= 0x0000_0100
            #expect(open(HostileZip([e]).bytes()) == .zipCRC)
        }
        // A wrong CRC on export.sig counts too, even unverified.
        var sig = HostileZip.Entry.stored("export.sig", Self.sig)
        sig.crc = 0
        #expect(open(HostileZip([.stored("export.bin", Self.bin), sig]).bytes()) == .zipCRC)
        // A stored member whose data was changed after the CRC was taken.
        var changed = HostileZip.Entry.stored("export.bin", Self.bin)
        changed.payload[40] ^= 1
        #expect(open(HostileZip([changed]).bytes()) == .zipCRC)
    }

    @Test func unsupportedMethods() {
        for method: UInt16 in [1, 6, 9, 12, 14, 93, 95, 98, 99, 0xFFFF] {
            var e = HostileZip.Entry.deflated("export.bin", Self.bin)
            e.method = method
            e.localMethod = method
            #expect(open(HostileZip([e]).bytes()) == .zipUnsupported, "method \(method)")
        }
    }

    @Test func encryptedFlags() {
        for flags: UInt16 in [0x0001, 0x0040, 0x0041, 0x0009] {
            var e = HostileZip.Entry.stored("export.bin", Self.bin)
            e.flags = flags
            #expect(open(HostileZip([e]).bytes()) == .zipUnsupported, "flags \(flags)")
        }
        // Encryption of export.sig is refused as well.
        var sig = HostileZip.Entry.stored("export.sig", Self.sig)
        sig.flags = 0x0001
        #expect(open(HostileZip([.stored("export.bin", Self.bin), sig]).bytes()) == .zipUnsupported)
        // Harmless flags (data descriptor bit, UTF-8 names) are accepted.
        var utf8 = HostileZip.Entry.stored("export.bin", Self.bin)
        utf8.flags = 0x0800
        #expect(open(HostileZip([utf8]).bytes()) == nil)
    }

    @Test func zip64Markers() {
        var compressed = HostileZip.Entry.deflated("export.bin", Self.bin)
        compressed.compressedSize = 0xFFFF_FFFF
        var uncompressed = HostileZip.Entry.deflated("export.bin", Self.bin)
        uncompressed.uncompressedSize = 0xFFFF_FFFF
        var offset = HostileZip.Entry.deflated("export.bin", Self.bin)
        offset.localOffsetOverride = 0xFFFF_FFFF
        var disk = HostileZip.Entry.deflated("export.bin", Self.bin)
        disk.startDisk = 0xFFFF
        for e in [compressed, uncompressed, offset, disk] {
            #expect(open(HostileZip([e]).bytes()) == .zipUnsupported)
        }
        let good = [HostileZip.Entry.stored("export.bin", Self.bin)]
        var entries = HostileZip(good)
        entries.entryCountOverride = 0xFFFF
        #expect(open(entries.bytes()) == .zipUnsupported)
        var size = HostileZip(good)
        size.directorySizeOverride = 0xFFFF_FFFF
        #expect(open(size.bytes()) == .zipUnsupported)
        var directoryOffset = HostileZip(good)
        directoryOffset.directoryOffsetOverride = 0xFFFF_FFFF
        #expect(open(directoryOffset.bytes()) == .zipUnsupported)
        var locator = HostileZip(good)
        locator.zip64Locator = true
        #expect(open(locator.bytes()) == .zipUnsupported)
    }

    @Test func multiDisk() {
        var z = HostileZip([.stored("export.bin", Self.bin)])
        z.diskNumber = 1
        #expect(open(z.bytes()) == .zipUnsupported)
    }

    // MARK: Members

    @Test func wrongMembers() {
        let bin = HostileZip.Entry.stored("export.bin", Self.bin), sig = HostileZip.Entry.stored("export.sig", Self.sig)
        let cases: [(String, [HostileZip.Entry])] = [
            ("a third member", [bin, sig, .stored("readme.txt", Array("hi".utf8))]),
            ("only export.sig", [sig]),
            ("no members", []),
            ("export.bin twice", [bin, bin]),
            ("export.sig twice", [bin, sig, sig]),
            ("export.bin twice, differing", [bin, .stored("export.bin", ExportFormat.header)]),
            ("a directory entry", [.stored("export/", []), bin]),
            ("a directory named like the member", [.stored("export.bin/", []), sig]),
            ("a path to export.bin", [.stored("keys/export.bin", Self.bin)]),
            ("a name in another case", [.stored("EXPORT.BIN", Self.bin)]),
            ("a name with a NUL", [.stored("export.bin\0", Self.bin)]),
            ("17 members", Array(repeating: bin, count: 17)),
        ]
        for (what, entries) in cases {
            #expect(open(HostileZip(entries).bytes()) == .zipMembers, "\(what)")
        }
        // The central directory is authoritative: a hidden local member that
        // it does not list is never looked at.
        var z = HostileZip([bin])
        z.prefix = HostileZip([.stored("evil.txt", Array("x".utf8))]).localRecords()
        #expect(open(z.bytes()) == nil)
    }

    // MARK: Local headers and data ranges

    @Test func localHeaderDisagreesWithTheDirectory() {
        var name = HostileZip.Entry.stored("export.bin", Self.bin)
        name.localName = Array("export.bim".utf8)
        #expect(open(HostileZip([name]).bytes()) == .zipCorrupt)
        var longer = HostileZip.Entry.stored("export.bin", Self.bin)
        longer.localName = Array("export.bin2".utf8)
        #expect(open(HostileZip([longer]).bytes()) == .zipCorrupt)
        var method = HostileZip.Entry.deflated("export.bin", Self.bin)
        method.localMethod = 0
        #expect(open(HostileZip([method]).bytes()) == .zipCorrupt)
        var signature = HostileZip.Entry.stored("export.bin", Self.bin)
        signature.localSignature = 0x0806_4b50
        #expect(open(HostileZip([signature]).bytes()) == .zipCorrupt)
        // The local header offset points into the middle of the data.
        var offset = HostileZip.Entry.stored("export.bin", Self.bin)
        offset.localOffsetOverride = 40
        #expect(open(HostileZip([offset]).bytes()) == .zipCorrupt)
    }

    @Test func localHeaderOffsetPastTheEnd() {
        var e = HostileZip.Entry.stored("export.bin", Self.bin)
        e.localOffsetOverride = 0x00FF_FFFF
        let k = open(HostileZip([e]).bytes())
        #expect(k == .zipTruncated || k == .zipCorrupt, "\(String(describing: k))")
        // A local name length running past the end of the input.
        var n = HostileZip.Entry.stored("export.bin", Self.bin)
        n.localNameLengthOverride = 0xFFFF
        let k2 = open(HostileZip([n]).bytes())
        #expect(k2 == .zipTruncated || k2 == .zipCorrupt, "\(String(describing: k2))")
    }

    @Test func storedMemberWithDifferingSizes() {
        var bigger = HostileZip.Entry.stored("export.bin", Self.bin)
        bigger.uncompressedSize += 10
        #expect(open(HostileZip([bigger]).bytes()) == .zipCorrupt)
        var smaller = HostileZip.Entry.stored("export.bin", Self.bin)
        smaller.uncompressedSize -= 10
        #expect(open(HostileZip([smaller]).bytes()) == .zipCorrupt)
        var shorter = HostileZip.Entry.stored("export.bin", Self.bin)
        shorter.compressedSize -= 10
        #expect(open(HostileZip([shorter]).bytes()) == .zipCorrupt)
    }

    @Test func deflateDataOfTheWrongSize() {
        var more = HostileZip.Entry.deflated("export.bin", Self.bin)
        more.uncompressedSize -= 1 // the stream inflates to one byte more than declared
        #expect(open(HostileZip([more]).bytes()) == .zipCorrupt)
        var less = HostileZip.Entry.deflated("export.bin", Self.bin)
        less.uncompressedSize += 1
        #expect(open(HostileZip([less]).bytes()) == .zipCorrupt)
        var zero = HostileZip.Entry.deflated("export.bin", Self.bin)
        zero.uncompressedSize = 0
        #expect(open(HostileZip([zero]).bytes()) == .zipCorrupt)
        // An empty member whose deflate stream is nonetheless not empty.
        var emptyDeclared = HostileZip.Entry.deflated("export.sig", Self.sig)
        emptyDeclared.uncompressedSize = 0
        #expect(open(HostileZip([.stored("export.bin", Self.bin), emptyDeclared]).bytes()) == .zipCorrupt)
    }

    @Test func garbageAndCutDeflateData() throws {
        var rng = SplitMix64(seed: 8)
        let deflated = try ZipWriter.deflate(Self.bin)
        let payloads: [(String, [UInt8])] = [
            ("reserved block type", [0xff, 0xff, 0xff, 0xff]),
            ("stored block with a bad length complement", [0x01, 0x10, 0x00, 0x10, 0x00] + [UInt8](repeating: 0, count: 16)),
            ("stream cut in half", Array(deflated.prefix(deflated.count / 2))),
            ("stream without its last byte", Array(deflated.dropLast())),
            ("empty stream", []),
            ("distance too far back", try HostileZip.rawDeflateNeedingDictionary(Self.bin)),
        ] + (0 ..< 50).map { i in ("random \(i)", (0 ..< 64).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }) }
        for (what, payload) in payloads {
            var e = HostileZip.Entry.deflated("export.bin", Self.bin)
            e.payload = payload
            e.compressedSize = UInt32(payload.count)
            let k = open(HostileZip([e]).bytes())
            // Random bytes are occasionally a valid (short) deflate stream:
            // then the size check or, failing that, the CRC catches them.
            if what.hasPrefix("random") {
                #expect(k == .zipCorrupt || k == .zipCRC, "\(what): \(String(describing: k))")
            } else {
                #expect(k == .zipCorrupt, "\(what): \(String(describing: k))")
            }
        }
    }

    @Test func directoryOffsetPastTheEnd() {
        for offset: UInt32 in [0x0100_0000, 0xFFFF_FFFE] {
            var z = HostileZip([.stored("export.bin", Self.bin)])
            z.directoryOffsetOverride = offset
            let k = open(z.bytes())
            #expect(k == .zipCorrupt || k == .zipTruncated, "offset \(offset): \(String(describing: k))")
        }
        var size = HostileZip([.stored("export.bin", Self.bin)])
        size.directorySizeOverride = 0x00FF_FFFF
        #expect(open(size.bytes()) == .zipCorrupt)
        // Fewer directory bytes than its entries need.
        var short = HostileZip([.stored("export.bin", Self.bin), .stored("export.sig", Self.sig)])
        short.directorySizeOverride = 50
        #expect(open(short.bytes()) == .zipCorrupt)
        // More entries claimed than the directory holds.
        var count = HostileZip([.stored("export.bin", Self.bin)])
        count.entryCountOverride = 2
        #expect(open(count.bytes()) == .zipCorrupt)
        // The directory offset points at local data, not a directory entry.
        var pointsAtData = HostileZip([.stored("export.bin", Self.bin)])
        pointsAtData.directoryOffsetOverride = 0
        #expect(open(pointsAtData.bytes()) == .zipCorrupt)
    }

    @Test func dataOverlappingTheCentralDirectory() {
        var stored = HostileZip.Entry.stored("export.bin", Self.bin)
        stored.compressedSize += 20
        stored.uncompressedSize += 20
        #expect(open(HostileZip([stored]).bytes()) == .zipCorrupt)
        var deflated = HostileZip.Entry.deflated("export.bin", Self.bin)
        deflated.compressedSize += 1
        #expect(open(HostileZip([deflated]).bytes()) == .zipCorrupt)
        // Data running past the end of the input.
        var past = HostileZip.Entry.stored("export.bin", Self.bin)
        past.compressedSize = 0x00FF_0000
        past.uncompressedSize = 0x00FF_0000
        let k = open(HostileZip([past]).bytes())
        #expect(k == .zipTruncated || k == .zipCorrupt, "\(String(describing: k))")
        // Two directory entries pointing at one local record: the second
        // one's name disagrees with the local header.
        var z = HostileZip([.stored("export.bin", Self.bin), .stored("export.sig", Self.sig)])
        z.shareFirstLocalRecord = true
        #expect(open(z.bytes()) == .zipCorrupt)
    }

    @Test func endRecordProblems() {
        let good = HostileZip([.stored("export.bin", Self.bin)]).bytes()
        // A comment length that does not match the bytes after the record.
        var comment = good
        comment[comment.count - 2] = 5
        #expect(open(comment) == .zipTruncated)
        // Trailing garbage after the end record.
        #expect(open(good + [0x00]) == .zipTruncated)
        // A proper comment is fine.
        var withComment = HostileZip([.stored("export.bin", Self.bin)])
        withComment.comment = Array("PK\u{05}\u{06} starts like an end record, but this is the comment".utf8)
        #expect(open(withComment.bytes()) == nil)
        // Just an end record.
        let eocd: [UInt8] = [0x50, 0x4b, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)
        #expect(open(eocd) == .zipMembers) // an empty zip is a zip, without export.bin
        #expect(open([0x50, 0x4b, 0x03, 0x04] + eocd) == .zipMembers)
    }

    // MARK: Limits

    @Test func memberOverTheMemberLimit() throws {
        let limits = ZipLimits(maxMemberSize: UInt64(Self.bin.count - 1), maxTotalSize: 1 << 30, maxRatio: 100)
        #expect(open(HostileZip([.stored("export.bin", Self.bin)]).bytes(), limits: limits) == .zipLimit)
        #expect(open(HostileZip([.stored("export.bin", Self.bin)]).bytes(),
                     limits: ZipLimits(maxMemberSize: UInt64(Self.bin.count), maxTotalSize: 1 << 30, maxRatio: 100)) == nil)
        // A declared size beyond the default limit is refused before anything is allocated.
        var huge = HostileZip.Entry.deflated("export.bin", Self.bin)
        huge.uncompressedSize = 600 << 20
        #expect(open(HostileZip([huge]).bytes(), limits: ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 0)) == .zipLimit)
        // A bare export.bin larger than the member limit.
        #expect(kind { try KeyFile(bytes: Self.bin, options: KeyFileOptions(verify: false, limits: limits)) } == .zipLimit)
        // export.sig is limited too.
        let sigLimit = ZipLimits(maxMemberSize: UInt64(Self.bin.count), maxTotalSize: 1 << 30, maxRatio: 100)
        let bigSig = [UInt8](repeating: 0, count: Self.bin.count + 1)
        #expect(open(HostileZip([.stored("export.bin", Self.bin), .stored("export.sig", bigSig)]).bytes(), limits: sigLimit) == .zipLimit)
    }

    @Test func membersOverTheTotalLimit() {
        let zip = HostileZip([.stored("export.bin", Self.bin), .stored("export.sig", Self.sig)]).bytes()
        let total = UInt64(Self.bin.count + Self.sig.count)
        #expect(open(zip, limits: ZipLimits(maxMemberSize: 1 << 20, maxTotalSize: total - 1, maxRatio: 100)) == .zipLimit)
        #expect(open(zip, limits: ZipLimits(maxMemberSize: 1 << 20, maxTotalSize: total, maxRatio: 100)) == nil)
        // Two members each under the default member limit, together over the total.
        var a = HostileZip.Entry.deflated("export.bin", Self.bin), b = HostileZip.Entry.deflated("export.sig", Self.sig)
        a.uncompressedSize = 500 << 20
        b.uncompressedSize = 500 << 20
        #expect(open(HostileZip([a, b]).bytes(), limits: ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 900 << 20, maxRatio: 0)) == .zipLimit)
    }

    @Test func highRatio() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let e = try HostileZip.Entry.deflatedRaw("export.bin", zeros)
        #expect(open(HostileZip([e]).bytes()) == .zipLimit)
        // With the ratio check off the member is extracted (and then is no export.bin).
        #expect(open(HostileZip([e]).bytes(), limits: ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 0)) == .exportHeader)
        // A ratio just under the limit passes the check; that this member
        // declares less than it holds is caught while inflating.
        var lower = e
        lower.uncompressedSize = lower.compressedSize * 99
        #expect(open(HostileZip([lower]).bytes(), limits: ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 100)) == .zipCorrupt)
        // Small members are never judged by their ratio.
        let small = try HostileZip.Entry.deflatedRaw("export.bin", ExportFormat.header + [UInt8](repeating: 0x00, count: 60_000))
        #expect(open(HostileZip([small]).bytes()) == .exportMalformed)
    }

    // MARK: The bomb: 4 GiB of zeros

    /// A raw deflate stream of `chunks` MiB of zeros, built without
    /// compressing them: one MiB compressed with a full flush is a
    /// byte-aligned piece that refers to nothing before it, so it can be
    /// repeated; an empty final stored block ends the stream.
    static func zeroBomb(chunks: Int) throws -> (stream: [UInt8], chunk: Int) {
        let chunk = try HostileZip.rawDeflateFullFlush([UInt8](repeating: 0, count: 1 << 20))
        var stream: [UInt8] = []
        stream.reserveCapacity(chunk.count * chunks + 5)
        for _ in 0 ..< chunks { stream += chunk }
        stream += [0x01, 0x00, 0x00, 0xff, 0xff]
        return (stream, chunk.count)
    }

    @Test func bombConstructionInflatesToWhatItClaims() throws {
        // Three chunks, honestly declared with the right CRC: the zip layer
        // accepts it, so the stream is 3 MiB of zeros exactly.
        let (stream, _) = try Self.zeroBomb(chunks: 3)
        let zeros = [UInt8](repeating: 0, count: 3 << 20)
        var e = HostileZip.Entry(name: Array("export.bin".utf8), payload: stream, method: 8, crc: ZipWriter.crc32(zeros),
                                 compressedSize: UInt32(stream.count), uncompressedSize: UInt32(zeros.count))
        let off = ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 0)
        #expect(open(HostileZip([e]).bytes(), limits: off) == .exportHeader)
        e.uncompressedSize -= 1
        #expect(open(HostileZip([e]).bytes(), limits: off) == .zipCorrupt)
    }

    /// A zip whose export.bin is `stream`, declared to inflate to `size`.
    static func bombZip(_ stream: [UInt8], declaring size: UInt32) -> [UInt8] {
        HostileZip([HostileZip.Entry(name: Array("export.bin".utf8), payload: stream, method: 8, crc: 0,
                                     compressedSize: UInt32(stream.count), uncompressedSize: size)]).bytes()
    }

    /// The bomb with its size declared (almost) honestly: 4 GiB does not fit
    /// 32 bits, so 0xFFFFFFFF is the zip64 marker; anything large under it
    /// is over the limits. (Lying about the size: HostileMemoryTests.)
    @Test func fourGiBZeroBombDeclaredHonestly() throws {
        let (stream, chunk) = try Self.zeroBomb(chunks: 4096)
        #expect(chunk < 2048)
        #expect(stream.count < 8 << 20)
        let off = ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 0)
        #expect(open(Self.bombZip(stream, declaring: 0xFFFF_FFFF)) == .zipUnsupported)
        #expect(open(Self.bombZip(stream, declaring: 0xFFFF_FFFF), limits: off) == .zipUnsupported)
        #expect(open(Self.bombZip(stream, declaring: 0xFFFF_FFFE)) == .zipLimit)
        #expect(open(Self.bombZip(stream, declaring: 0xFFFF_FFFE), limits: off) == .zipLimit)
        #expect(open(Self.bombZip(stream, declaring: 600 << 20)) == .zipLimit)
        // Under the member limit, the ratio check refuses it.
        #expect(open(Self.bombZip(stream, declaring: 500 << 20)) == .zipLimit)
    }
}

// MARK: - A zip builder that can lie

/// Writes a zip archive field by field, so that any field can be made wrong.
struct HostileZip {
    struct Entry {
        var name: [UInt8]
        var payload: [UInt8]
        var method: UInt16
        var flags: UInt16 = 0
        var crc: UInt32
        var compressedSize: UInt32
        var uncompressedSize: UInt32
        var startDisk: UInt16 = 0
        /// Local-header fields that differ from the directory's.
        var localName: [UInt8]? = nil
        var localMethod: UInt16? = nil
        var localSignature: UInt32 = 0x0403_4b50
        var localExtra: [UInt8] = []
        var localNameLengthOverride: UInt16? = nil
        var localOffsetOverride: UInt32? = nil

        init(name: [UInt8], payload: [UInt8], method: UInt16, crc: UInt32, compressedSize: UInt32, uncompressedSize: UInt32) {
            self.name = name
            self.payload = payload
            self.method = method
            self.crc = crc
            self.compressedSize = compressedSize
            self.uncompressedSize = uncompressedSize
        }

        static func stored(_ name: String, _ data: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), payload: data, method: 0, crc: ZipWriter.crc32(data),
                  compressedSize: UInt32(data.count), uncompressedSize: UInt32(data.count))
        }

        static func deflated(_ name: String, _ data: [UInt8]) -> Entry {
            // swiftlint:disable:next force_try
            try! deflatedRaw(name, data)
        }

        static func deflatedRaw(_ name: String, _ data: [UInt8]) throws -> Entry {
            let payload = try ZipWriter.deflate(data)
            return Entry(name: Array(name.utf8), payload: payload, method: 8, crc: ZipWriter.crc32(data),
                         compressedSize: UInt32(payload.count), uncompressedSize: UInt32(data.count))
        }
    }

    var entries: [Entry]
    /// Bytes placed before the first local record.
    var prefix: [UInt8] = []
    var comment: [UInt8] = []
    var diskNumber: UInt16 = 0
    var entryCountOverride: UInt16? = nil
    var directorySizeOverride: UInt32? = nil
    var directoryOffsetOverride: UInt32? = nil
    var zip64Locator = false
    /// Every directory entry points at the first local record.
    var shareFirstLocalRecord = false

    init(_ entries: [Entry]) { self.entries = entries }

    /// The local records alone (header + data of each entry).
    func localRecords() -> [UInt8] { layout().local }

    private func layout() -> (local: [UInt8], offsets: [UInt32]) {
        var out: [UInt8] = []
        var offsets: [UInt32] = []
        for e in entries {
            offsets.append(UInt32(prefix.count + out.count))
            let localName = e.localName ?? e.name
            put32(&out, e.localSignature); put16(&out, 20); put16(&out, e.flags); put16(&out, e.localMethod ?? e.method)
            put16(&out, 0); put16(&out, 0x21)
            put32(&out, e.crc); put32(&out, e.compressedSize); put32(&out, e.uncompressedSize)
            put16(&out, e.localNameLengthOverride ?? UInt16(localName.count)); put16(&out, UInt16(e.localExtra.count))
            out += localName
            out += e.localExtra
            out += e.payload
        }
        return (out, offsets)
    }

    func bytes() -> [UInt8] {
        let (local, offsets) = layout()
        var out = prefix + local
        var central: [UInt8] = []
        for (i, e) in entries.enumerated() {
            let offset = e.localOffsetOverride ?? (shareFirstLocalRecord ? offsets.first ?? 0 : offsets[i])
            put32(&central, 0x0201_4b50); put16(&central, 20); put16(&central, 20); put16(&central, e.flags); put16(&central, e.method)
            put16(&central, 0); put16(&central, 0x21)
            put32(&central, e.crc); put32(&central, e.compressedSize); put32(&central, e.uncompressedSize)
            put16(&central, UInt16(e.name.count)); put16(&central, 0); put16(&central, 0); put16(&central, e.startDisk); put16(&central, 0)
            put32(&central, 0); put32(&central, offset)
            central += e.name
        }
        let directoryOffset = UInt32(out.count)
        out += central
        if zip64Locator {
            // A zip64 end-of-central-directory locator right before the end record.
            put32(&out, 0x0706_4b50); put32(&out, 0); put32(&out, UInt32(out.count)); put32(&out, 0); put32(&out, 1)
        }
        put32(&out, 0x0605_4b50); put16(&out, diskNumber); put16(&out, diskNumber)
        let count = entryCountOverride ?? UInt16(entries.count)
        put16(&out, count); put16(&out, count)
        put32(&out, directorySizeOverride ?? UInt32(central.count)); put32(&out, directoryOffsetOverride ?? directoryOffset)
        put16(&out, UInt16(comment.count))
        out += comment
        return out
    }

    /// Raw deflate of `data` ending with Z_FULL_FLUSH instead of Z_FINISH:
    /// byte-aligned, no final block, no reference to anything before it.
    static func rawDeflateFullFlush(_ data: [UInt8]) throws -> [UInt8] {
        let result = try ZipWriter.deflate(data, level: Z_BEST_COMPRESSION, flush: Z_FULL_FLUSH)
        // A full flush ends with an empty stored block: 00 00 ff ff.
        guard result.suffix(4) == [0x00, 0x00, 0xff, 0xff] else { throw EncoreError(.internalError, "no sync marker after a full flush") }
        return result
    }

    /// Raw deflate of `data` against a preset dictionary holding `data`
    /// itself: the stream refers to bytes before its start, which an
    /// inflater without the dictionary must refuse ("distance too far back").
    static func rawDeflateNeedingDictionary(_ data: [UInt8]) throws -> [UInt8] {
        try ZipWriter.deflate(data, level: Z_BEST_COMPRESSION, dictionary: data)
    }

    private func put16(_ b: inout [UInt8], _ v: UInt16) {
        b.append(UInt8(truncatingIfNeeded: v)); b.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private func put32(_ b: inout [UInt8], _ v: UInt32) {
        for i in 0 ..< 4 { b.append(UInt8(truncatingIfNeeded: v >> UInt32(8 * i))) }
    }
}

/// export.bin's CRC when the signature is required: a signature that
/// verifies proves the bytes, so the CRC is checked only when something
/// fails, and damage is still reported as a CRC error.
@Suite struct DeferredCRCTests {
    /// The Google sample with the central directory's CRC of export.bin changed.
    func wrongCRC() throws -> [UInt8] {
        var bytes = try TestData.bytes("exports/google-sample/sample_diagnosis_key_file.zip")
        let name = Array("export.bin".utf8)
        let central: [UInt8] = [0x50, 0x4b, 0x01, 0x02]
        func isEntry(_ i: Int) -> Bool {
            Array(bytes[i ..< i + 4]) == central && Array(bytes[i + 46 ..< i + 46 + name.count]) == name
        }
        let at = try #require((0 ..< bytes.count - 46 - name.count).first(where: isEntry))
        bytes[at + 16] ^= 0x01
        return bytes
    }

    @Test func aVerifiedFileNeedsNoCRC() throws {
        let trust = try TestData.sampleTrust()
        let f = try KeyFile(bytes: try wrongCRC(), options: KeyFileOptions(trust: trust))
        #expect(f.signature.status == .verified)
        #expect(try f.keys().count == (try KeyFile(bytes: try TestData.bytes("exports/google-sample/sample_diagnosis_key_file.zip"),
                                                   options: KeyFileOptions(trust: trust)).keys().count))
    }

    @Test func withoutVerificationTheCRCIsChecked() throws {
        for options in [KeyFileOptions(verify: false), KeyFileOptions(verification: .report, trust: try TestData.sampleTrust())] {
            #expect(kind { try KeyFile(bytes: try wrongCRC(), options: options) } == .zipCRC)
        }
    }

    @Test func anUntrustedFileWithAWrongCRCIsReportedAsACRCError() throws {
        // No trusted key: verification fails, so the CRC decides the status.
        #expect(kind { try KeyFile(bytes: try wrongCRC(), options: KeyFileOptions()) } == .zipCRC)
        let sample = try TestData.bytes("exports/google-sample/sample_diagnosis_key_file.zip")
        #expect(kind { try KeyFile(bytes: sample, options: KeyFileOptions()) } != .zipCRC)
    }

    func kind(_ body: () throws -> KeyFile) -> EncoreError.Kind? {
        do { _ = try body(); return nil } catch let e as EncoreError { return e.kind } catch { return .internalError }
    }
}
