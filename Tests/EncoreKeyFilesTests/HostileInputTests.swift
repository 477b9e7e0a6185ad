import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Foundation
import Testing

/// Hostile inputs: every one must end in an EncoreError of the expected kind
/// (or, where the damage happens to leave a valid file, open consistently) —
/// never a crash, a trap or a foreign error.
@Suite struct HostileInputTests {
    // MARK: Truncation

    /// Every prefix of every sample zip: shorter than a zip signature it is
    /// not a zip, otherwise it starts like one and breaks off (its end record
    /// is gone). Only the whole file opens.
    @Test(arguments: HostileSamples.zips)
    func zipTruncatedAtEveryByte(_ sample: String) throws {
        let bytes = try TestData.bytes("exports/" + sample)
        var seen: [EncoreError.Kind: Int] = [:]
        for n in 0 ..< bytes.count {
            let expected: EncoreError.Kind = n < 4 ? .zipNotZip : .zipTruncated
            switch hostileOpen(Array(bytes[..<n]), KeyFileOptions(verify: false)) {
            case .failed(let e):
                seen[e.kind, default: 0] += 1
                #expect(e.kind == expected, "\(sample) cut at \(n): \(e.kind) (\(e.message))")
            case .opened:
                Issue.record("\(sample) cut at \(n) of \(bytes.count) bytes opened")
            case .foreign(let error):
                Issue.record("\(sample) cut at \(n): not an EncoreError: \(error)")
            }
        }
        #expect(seen[.zipNotZip] == min(4, bytes.count))
        #expect(hostileOpen(bytes, KeyFileOptions(verify: false)).opened != nil)
    }

    /// Every prefix of a bare export.bin. A cut that lands exactly between two
    /// top-level fields leaves a valid, shorter export.bin: it must open and
    /// hold the leading keys of the original. Every other cut is malformed.
    @Test(arguments: HostileSamples.bareExports)
    func bareExportTruncatedAtEveryByte(_ sample: String) throws {
        let bytes = try TestData.bytes("exports/" + sample)
        let full = try KeyFile(bytes: bytes, options: KeyFileOptions(verify: false))
        let fullKeys = try full.keys(), fullRevised = try full.keys(in: .revisedKeys)
        // Field boundaries found by a walker independent of ProtoWire.
        let fields = try #require(HostileProto.topLevelFields(Array(bytes[ExportFormat.header.count...])))
        let boundaries = Set([0] + fields.map(\.end))
        var validPrefixes = 0
        for n in 0 ..< bytes.count {
            let outcome = hostileOpen(Array(bytes[..<n]), KeyFileOptions(verify: false))
            let expected: EncoreError.Kind?
            if n < ExportFormat.headerPrefix.count {
                expected = .zipNotZip // neither "PK\3\4" nor "EK Export"
            } else if n < ExportFormat.header.count {
                expected = .exportHeader
            } else if boundaries.contains(n - ExportFormat.header.count) {
                expected = nil
            } else {
                expected = .exportMalformed
            }
            switch outcome {
            case .failed(let e):
                #expect(e.kind == expected, "\(sample) cut at \(n): \(e.kind) (\(e.message)), expected \(String(describing: expected))")
            case .opened(let f):
                #expect(expected == nil, "\(sample) cut at \(n) opened, expected \(String(describing: expected))")
                validPrefixes += 1
                let body = n - ExportFormat.header.count
                let included = fields.filter { $0.end <= body && ($0.number == 7 || $0.number == 8) }.count
                #expect(f.metadata.keyCount + f.metadata.revisedKeyCount + f.metadata.invalidKeyCount == UInt64(included))
                let keys = try f.keys(), revised = try f.keys(in: .revisedKeys)
                #expect(keys == Array(fullKeys.prefix(keys.count)), "\(sample) cut at \(n): keys are not a prefix")
                #expect(revised == Array(fullRevised.prefix(revised.count)))
            case .foreign(let error):
                Issue.record("\(sample) cut at \(n): not an EncoreError: \(error)")
            }
        }
        #expect(validPrefixes == boundaries.count - 1) // the full length is not among the cuts
    }

    // MARK: Bit flips

    /// Random single-bit flips: opening either succeeds (and then every key
    /// reads) or throws an EncoreError. With verification on, a file that
    /// still verifies must hold exactly the original keys and metadata.
    @Test(arguments: HostileSamples.all)
    func randomBitFlips(_ sample: String) throws {
        let bytes = try TestData.bytes("exports/" + sample)
        let trust = try TestData.sampleTrust()
        let original = try KeyFile(bytes: bytes, options: KeyFileOptions(verify: false))
        let originalKeys = try original.keys(), originalRevised = try original.keys(in: .revisedKeys)
        var rng = SplitMix64(seed: sample.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }) // FNV-1a of the name
        let cases = bytes.count > 20_000 ? 1500 : 3000
        var verifiedAfterFlip = 0, openedUnverified = 0
        var kinds: Set<EncoreError.Kind> = []
        for c in 0 ..< cases {
            var changed = bytes
            let i = Int.random(in: 0 ..< bytes.count, using: &rng), bit = UInt8(1) << UInt8.random(in: 0 ..< 8, using: &rng)
            changed[i] ^= bit
            let what = "\(sample) case \(c): byte \(i) ^ \(bit)"
            let unverified = hostileOpen(changed, KeyFileOptions(verify: false))
            try hostileCheckConsistent(unverified, what)
            switch unverified {
            case .opened: openedUnverified += 1
            case .failed(let e): kinds.insert(e.kind)
            case .foreign: break
            }
            if case .opened(let f) = hostileOpen(changed, KeyFileOptions(trust: trust)) {
                verifiedAfterFlip += 1
                #expect(f.signature.status == .verified, "\(what)")
                #expect(try f.keys() == originalKeys, "\(what): verified with different keys")
                #expect(try f.keys(in: .revisedKeys) == originalRevised, "\(what)")
                #expect(f.metadata == original.metadata, "\(what): verified with different metadata")
                f.withExportBin { bin in original.withExportBin { #expect($0.elementsEqual(bin), "\(what): export.bin differs") } }
            }
        }
        if sample.hasPrefix("companion") || sample.hasSuffix(".bin") {
            #expect(verifiedAfterFlip == 0) // unsigned / bare: never verified
        }
        // The flips reached both outcomes, and only the kinds that damage
        // to this kind of file can produce.
        #expect(openedUnverified > 0 && openedUnverified < cases)
        let allowed: Set<EncoreError.Kind> = sample.hasSuffix(".zip")
            ? [.zipNotZip, .zipTruncated, .zipCRC, .zipUnsupported, .zipLimit, .zipMembers, .zipCorrupt, .exportHeader, .exportMalformed]
            : [.zipNotZip, .exportHeader, .exportMalformed]
        #expect(kinds.isSubset(of: allowed), "\(sample): \(kinds.subtracting(allowed))")
    }

    /// Every single-bit flip of the signed Google sample zip, all 8 × 3275
    /// of them: whatever still verifies holds exactly the original keys.
    @Test func everySingleBitFlipOfTheGoogleSampleZip() throws {
        let bytes = try TestData.bytes("exports/google-sample/sample_diagnosis_key_file.zip")
        let trust = try TestData.sampleTrust()
        let original = try KeyFile(bytes: bytes, options: KeyFileOptions(trust: trust))
        let originalKeys = try original.keys()
        var verified = 0
        var kinds: [EncoreError.Kind: Int] = [:]
        for i in 0 ..< bytes.count {
            for bit in 0 ..< 8 {
                var changed = bytes
                changed[i] ^= UInt8(1) << UInt8(bit)
                switch hostileOpen(changed, KeyFileOptions(trust: trust)) {
                case .opened(let f):
                    verified += 1
                    #expect(f.signature.status == .verified && f.signature.keyID == "310")
                    #expect(try f.keys() == originalKeys, "byte \(i) bit \(bit): verified with different keys")
                    #expect(f.metadata == original.metadata, "byte \(i) bit \(bit): verified with different metadata")
                case .failed(let e):
                    kinds[e.kind, default: 0] += 1
                case .foreign(let error):
                    Issue.record("byte \(i) bit \(bit): not an EncoreError: \(error)")
                }
            }
        }
        // Flips in fields the reader does not use (versions, times,
        // attributes of the headers) leave the file intact; all others fail.
        #expect(verified > 0 && verified < bytes.count)
        #expect(kinds[.zipCRC, default: 0] > bytes.count)
    }

    /// Every single-bit flip of export.bin inside the signed Google sample
    /// (re-zipped with correct CRCs, so only the signature can notice): none
    /// may verify.
    @Test func everyBitFlipOfTheGoogleSampleExportBinFailsVerification() throws {
        let zip = try TestData.bytes("exports/google-sample/sample_diagnosis_key_file.zip")
        let trust = try TestData.sampleTrust()
        let archive = try zip.withUnsafeBytes { try KeyFileArchive.extract($0, limits: .default) }
        let bin = archive.exportBin.bytes, sig = try #require(archive.exportSig).bytes
        var kinds: [EncoreError.Kind: Int] = [:]
        var rng = SplitMix64(seed: 310)
        // Every byte once (a random bit of it), header included.
        for i in 0 ..< bin.count {
            var changed = bin
            changed[i] ^= UInt8(1) << UInt8.random(in: 0 ..< 8, using: &rng)
            let rezipped = try ZipWriter.archive([.init(name: "export.bin", data: changed, compress: false),
                                                  .init(name: "export.sig", data: sig, compress: false)])
            switch hostileOpen(rezipped, KeyFileOptions(trust: trust)) {
            case .opened:
                Issue.record("export.bin byte \(i) changed but the file verified")
            case .failed(let e):
                kinds[e.kind, default: 0] += 1
                #expect([.signatureInvalid, .exportMalformed, .exportHeader, .batch].contains(e.kind), "byte \(i): \(e.kind)")
            case .foreign(let error):
                Issue.record("byte \(i): \(error)")
            }
        }
        #expect(kinds[.signatureInvalid, default: 0] > bin.count / 2)
    }

    // MARK: Not a key file at all

    @Test func emptyInputIsNotAZip() {
        #expect(kind { try KeyFile(bytes: [UInt8](), options: KeyFileOptions(verify: false)) } == .zipNotZip)
        #expect(kind { try KeyFile(bytes: [UInt8](), options: KeyFileOptions()) } == .zipNotZip)
    }

    @Test func randomBytesAreNotAZip() {
        var rng = SplitMix64(seed: 7)
        for length in [1, 3, 4, 9, 15, 16, 21, 22, 23, 100, 4096, 70_000] {
            for _ in 0 ..< 8 {
                var bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                if bytes.first == UInt8(ascii: "P") || bytes.first == UInt8(ascii: "E") { bytes[0] = 0 }
                #expect(kind { try KeyFile(bytes: bytes, options: KeyFileOptions(verify: false)) } == .zipNotZip, "\(length) random bytes")
            }
        }
        // Text that is not a key file either.
        #expect(kind { try KeyFile(bytes: Array("hello, world\n".utf8), options: KeyFileOptions(verify: false)) } == .zipNotZip)
    }

    @Test func otherExportVersionsAreRefusedByHeader() {
        for header in ["EK Export v2    ", "EK Export v1   x", "EK Export", "EK Export v1", "EK Export v10   "] {
            let bytes = Array(header.utf8) + [0x1a, 0x02, 0x55, 0x53]
            #expect(kind { try KeyFile(bytes: bytes, options: KeyFileOptions(verify: false)) } == .exportHeader, "\(header)")
        }
        #expect(kind { try KeyFile(bytes: Array("EK Export".utf8), options: KeyFileOptions(verify: false)) } == .exportHeader)
    }

    @Test func zipWithWrongExportMagicIsRefusedByHeader() throws {
        let good = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: [Fixtures.key(1)])
        for bad in [Array("EK Export v2    ".utf8) + good.dropFirst(16), Array("XX Export v1    ".utf8) + good.dropFirst(16),
                    Array(good.prefix(10)), [], Array(good.dropFirst(16))] {
            let zip = try ZipWriter.archive([.init(name: "export.bin", data: bad)])
            #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(verify: false)) } == .exportHeader)
        }
    }

    // MARK: Protobuf

    /// Bodies after the header that must be refused as malformed.
    static let malformedBodies: [(String, [UInt8])] = [
        ("length past the end", [0x1a, 0x05, 0x55, 0x53]),
        ("length far past the end", [0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x55]),
        ("length of 2^63", [0x1a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        ("key length past the end", [0x3a, 0x40] + [UInt8](repeating: 0, count: 10)),
        ("varint value runs off the end", [0x20, 0x80]),
        ("varint value runs off after 9 bytes", [0x20] + [UInt8](repeating: 0xff, count: 9)),
        ("tag varint runs off the end", [0x80]),
        ("length varint runs off the end", [0x1a, 0x80, 0x80]),
        ("11-byte varint value", [0x20] + [UInt8](repeating: 0xff, count: 10) + [0x01]),
        ("11-byte varint tag", [UInt8](repeating: 0x80, count: 10) + [0x00]),
        ("field number 0, varint", [0x00, 0x00]),
        ("field number 0, length-delimited", [0x02, 0x00]),
        ("field 1 wire type 3 (start group)", [0x0b]),
        ("field 1 wire type 4 (end group)", [0x0c]),
        ("field 1 wire type 6", [0x0e, 0x00]),
        ("field 1 wire type 7", [0x0f, 0x00]),
        ("unknown field 99 wire type 3", [0x9b, 0x06]),
        ("unknown field 99 wire type 7", [0x9f, 0x06, 0x00]),
        ("fixed64 cut short", [0x09, 0x01, 0x02, 0x03]),
        ("fixed32 cut short", [0x9d, 0x06, 0x01]),
        ("key field 7 as varint", [0x38, 0x01]),
        ("key field 7 as fixed64", [0x39] + [UInt8](repeating: 0, count: 8)),
        ("revised key field 8 as varint", [0x40, 0x01]),
        ("start timestamp as varint", [0x08, 0x01]),
        ("region as varint", [0x18, 0x01]),
        ("batch_num as length-delimited", [0x22, 0x01, 0x01]),
        ("signature_info as fixed32", [0x35, 0, 0, 0, 0]),
        ("key whose key_data runs past the key", [0x3a, 0x02, 0x0a, 0x05]),
        ("key with wire type 7 inside", [0x3a, 0x02, 0x0f, 0x00]),
        ("signature_info with a bad inner length", [0x32, 0x02, 0x0a, 0x7f]),
        ("valid key then garbage", [0x3a, 0x12, 0x0a, 0x10] + [UInt8](repeating: 1, count: 16) + [0xff]),
    ]

    @Test func malformedProtobufIsRefused() throws {
        for (what, body) in Self.malformedBodies {
            let bin = ExportFormat.header + body
            #expect(kind { try KeyFile(bytes: bin, options: KeyFileOptions(verify: false)) } == .exportMalformed, "\(what)")
            // The same export.bin inside a zip.
            let zip = try ZipWriter.archive([.init(name: "export.bin", data: bin)])
            #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(verify: false)) } == .exportMalformed, "\(what) (zip)")
            // Appended to a valid file.
            let sample = try TestData.bytes("exports/immuni/export.bin")
            #expect(kind { try KeyFile(bytes: sample + body, options: KeyFileOptions(verify: false)) } == .exportMalformed, "\(what) (appended)")
        }
    }

    /// The boundaries of what must still be accepted next to the cases above.
    @Test func wellFormedEdgesStillOpen() throws {
        let ok: [(String, [UInt8])] = [
            ("empty body", []),
            ("10-byte varint", [0x20] + [UInt8](repeating: 0xff, count: 9) + [0x01]),
            ("unknown field 99 fixed32", [0x9d, 0x06, 1, 2, 3, 4]),
            ("unknown field 99 length-delimited", [0x9a, 0x06, 0x01, 0x00]),
            ("unknown field of the largest number", [0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00]),
            ("empty key (invalid, counted)", [0x3a, 0x00]),
        ]
        for (what, body) in ok {
            #expect(throws: Never.self, "\(what)") { try KeyFile(bytes: ExportFormat.header + body, options: KeyFileOptions(verify: false)) }
        }
    }

    // MARK: export.sig

    private static func signedParts(_ signer: PrivateKey) throws -> (bin: [UInt8], der: [UInt8]) {
        var meta = Fixtures.metadata()
        meta.signatureInfos = [Fixtures.info()]
        let bin = ExportWriter.exportBin(metadata: meta, keys: (0 ..< 3).map { Fixtures.key($0) })
        let der = try bin.withUnsafeBytes { try signer.sign($0, algorithm: .sha256) }
        return (bin, der)
    }

    private static func zip(_ bin: [UInt8], _ sig: [UInt8]) throws -> [UInt8] {
        try ZipWriter.archive([.init(name: "export.bin", data: bin), .init(name: "export.sig", data: sig, compress: false)])
    }

    @Test func garbageExportSigIsMalformedOnlyWhenVerifying() throws {
        let signer = try PrivateKey()
        let trust = try Fixtures.trust(signer)
        let (bin, _) = try Self.signedParts(signer)
        var rng = SplitMix64(seed: 99)
        let garbage: [[UInt8]] = [
            [0xff, 0xff, 0xff],
            [0x0a, 0x7f, 0x00],                 // signature claims 127 bytes
            [0x0a, 0x02, 0x0a, 0x7f],           // its SignatureInfo claims 127 bytes
            [0x0b],                             // wire type 3
            [0x08, 0x80],                       // varint runs off
            Array("not a protobuf at all, just text".utf8),
            (0 ..< 300).map { _ in UInt8.random(in: 0 ... 255, using: &rng) },
        ]
        for sig in garbage {
            let zip = try Self.zip(bin, sig)
            let k = kind { try KeyFile(bytes: zip, options: KeyFileOptions(trust: trust)) }
            #expect(k == .signatureMalformed, "\(Hex.encode(sig.prefix(8))): \(String(describing: k))")
            let f = try KeyFile(bytes: zip, options: KeyFileOptions(verify: false))
            #expect(f.signature.status == .skipped)
            #expect(try f.keys().count == 3)
        }
    }

    /// ECDSA signatures must be strict DER: the BER spellings of a valid
    /// signature by a trusted key are invalid, not verified.
    @Test func berButNotDERSignaturesAreInvalid() throws {
        let signer = try PrivateKey()
        let trust = try Fixtures.trust(signer)
        let (bin, der) = try Self.signedParts(signer)
        let sig = { (der: [UInt8]) in ExportWriter.exportSig([(Fixtures.info(), 1, 1, der)]) }
        // The DER one verifies.
        #expect(try KeyFile(bytes: Self.zip(bin, sig(der)), options: KeyFileOptions(trust: trust)).signature.status == .verified)

        let variants = try #require(HostileDER.berVariants(of: der))
        #expect(variants.count >= 4)
        for (what, ber) in variants {
            #expect(ber != der)
            let k = kind { try KeyFile(bytes: Self.zip(bin, sig(ber)), options: KeyFileOptions(trust: trust)) }
            #expect(k == .signatureInvalid, "\(what): \(String(describing: k))")
        }
        // Not DER at all, or empty, from the trusted key name.
        for bad in [[], [0x30, 0x00], [0x30], Array(der.dropLast()), der.map { $0 ^ 0x55 }] as [[UInt8]] {
            #expect(kind { try KeyFile(bytes: Self.zip(bin, sig(bad)), options: KeyFileOptions(trust: trust)) } == .signatureInvalid)
        }
    }

    @Test func moreThan64SignaturesAreMalformed() throws {
        let signer = try PrivateKey()
        let trust = try Fixtures.trust(signer)
        let (bin, der) = try Self.signedParts(signer)
        let entry = (info: Fixtures.info(), batchNum: Int32(1), batchSize: Int32(1), der: der)
        let at64 = try Self.zip(bin, ExportWriter.exportSig(Array(repeating: entry, count: SignatureFile.maxSignatures)))
        #expect(try KeyFile(bytes: at64, options: KeyFileOptions(trust: trust)).signature.status == .verified)
        for n in [65, 1000, 20_000] {
            let zip = try Self.zip(bin, ExportWriter.exportSig(Array(repeating: entry, count: n)))
            #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(trust: trust)) } == .signatureMalformed, "\(n) signatures")
            #expect(try KeyFile(bytes: zip, options: KeyFileOptions(verify: false)).signature.status == .skipped)
        }
    }

    /// The sample list covers every file under Tests/data/exports.
    @Test func sampleListIsComplete() throws {
        let root = TestData.path("exports")
        let found = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".zip") || $0.hasSuffix(".bin") }.sorted()
        #expect(found == HostileSamples.all.sorted())
    }
}

// MARK: - Helpers shared by the hostile tests

enum HostileSamples {
    static let zips = [
        "companion/demo_dks.zip",
        "contrac/sample_diagnosis_key_file.zip",
        "en-server/testExport-2-records-1-of-1.zip",
        "google-sample/sample_diagnosis_key_file.zip",
    ]
    static let bareExports = ["google-cpp/export.bin", "immuni/export.bin"]
    static let all = zips + bareExports
}

/// How opening a hostile input ended.
enum HostileOutcome {
    case opened(KeyFile)
    case failed(EncoreError)
    case foreign(any Error)

    var opened: KeyFile? {
        if case .opened(let f) = self { return f }
        return nil
    }
}

func hostileOpen(_ bytes: [UInt8], _ options: KeyFileOptions) -> HostileOutcome {
    do {
        return .opened(try KeyFile(bytes: bytes, options: options))
    } catch let e as EncoreError {
        return .failed(e)
    } catch {
        return .foreign(error)
    }
}

/// An outcome is consistent when it is an EncoreError, or a file whose key
/// lists all read and match its counts.
func hostileCheckConsistent(_ outcome: HostileOutcome, _ what: String) throws {
    switch outcome {
    case .failed:
        break
    case .foreign(let error):
        Issue.record("\(what): not an EncoreError: \(error)")
    case .opened(let f):
        for list in KeyList.allCases {
            var n: UInt64 = 0
            do {
                try f.forEachKey(in: list) { _ in n += 1 }
            } catch {
                Issue.record("\(what): reading \(list) of an opened file failed: \(error)")
            }
            #expect(n == f.count(of: list), "\(what): \(list) read \(n), counted \(f.count(of: list))")
        }
    }
}

/// A protobuf walker written separately from ProtoWire, to know where the
/// top-level fields of a valid export.bin body end.
enum HostileProto {
    struct Field { var number: UInt64; var end: Int }

    static func topLevelFields(_ body: [UInt8]) -> [Field]? {
        var p = 0
        var fields: [Field] = []
        func varint() -> UInt64? {
            var v: UInt64 = 0
            for i in 0 ..< 10 {
                guard p < body.count else { return nil }
                let b = body[p]
                p += 1
                v |= UInt64(b & 0x7f) << UInt64(7 * i)
                if b < 0x80 { return v }
            }
            return nil
        }
        while p < body.count {
            guard let tag = varint() else { return nil }
            switch tag & 7 {
            case 0: guard varint() != nil else { return nil }
            case 1: p += 8
            case 5: p += 4
            case 2:
                guard let n = varint(), n <= UInt64(body.count - p) else { return nil }
                p += Int(n)
            default: return nil
            }
            guard p <= body.count else { return nil }
            fields.append(Field(number: tag >> 3, end: p))
        }
        return fields
    }
}

/// BER spellings of a DER ECDSA-Sig-Value SEQUENCE { INTEGER r, INTEGER s }.
enum HostileDER {
    /// Short-form DER lengths (< 128) written in long forms, and INTEGERs
    /// with superfluous leading zero bytes; nil when `der` is not the simple
    /// short-form shape every P-256 signature has.
    static func berVariants(of der: [UInt8]) -> [(String, [UInt8])]? {
        guard der.count >= 8, der[0] == 0x30, der[1] < 0x80, Int(der[1]) == der.count - 2, der[2] == 0x02 else { return nil }
        let rLength = Int(der[3])
        guard rLength < 0x80, 4 + rLength + 2 <= der.count, der[4 + rLength] == 0x02 else { return nil }
        let r = Array(der[4 ..< 4 + rLength])
        let sLength = Int(der[5 + rLength])
        guard sLength < 0x80, 6 + rLength + sLength == der.count else { return nil }
        let s = Array(der[(6 + rLength)...])

        func length(_ n: Int, longForm: Int) -> [UInt8] {
            longForm == 0 ? [UInt8(n)] : [0x80 | UInt8(longForm)] + [UInt8](repeating: 0, count: longForm - 1) + [UInt8(n)]
        }
        func integer(_ v: [UInt8], longForm: Int = 0) -> [UInt8] { [0x02] + length(v.count, longForm: longForm) + v }
        func sequence(_ content: [UInt8], longForm: Int = 0) -> [UInt8] { [0x30] + length(content.count, longForm: longForm) + content }

        return [
            ("SEQUENCE length as 0x81 nn", sequence(integer(r) + integer(s), longForm: 1)),
            ("SEQUENCE length as 0x82 00 nn", sequence(integer(r) + integer(s), longForm: 2)),
            ("r length as 0x81 nn", sequence(integer(r, longForm: 1) + integer(s))),
            ("s length as 0x81 nn", sequence(integer(r) + integer(s, longForm: 1))),
            ("r with a superfluous leading zero", sequence(integer([0] + r) + integer(s))),
            ("s with a superfluous leading zero", sequence(integer(r) + integer([0] + s))),
            ("indefinite SEQUENCE length", [0x30, 0x80] + integer(r) + integer(s) + [0x00, 0x00]),
            ("trailing byte after the SEQUENCE", der + [0x00]),
        ]
    }
}
