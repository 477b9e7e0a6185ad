import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import CEncoreShim
import Testing

/// Matching opens key files two at a time and hashes their export.bin side
/// by side (enc_sha256_pair), with buffers from a pool: the digests must be
/// SHA-256's, and each file must open exactly as it does alone, whatever its
/// partner is or does.
@Suite struct KeyFileGroupTests {
    @Test func pairedDigestsAreSHA256() throws {
        var rng = SplitMix64(seed: 0x5a)
        let data = (0 ..< 300_100).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let lengthsA = Array(0 ... 130) + [191, 192, 193, 4096, 65_537, 299_999]
        let lengthsB = [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 65_536, 300_000]
        try data.withUnsafeBytes { all in
            // Different, unaligned starts: the lanes never see the same bytes.
            let base = try #require(all.baseAddress).assumingMemoryBound(to: UInt8.self)
            for a in lengthsA {
                for b in lengthsB {
                    var da = [UInt8](repeating: 0, count: 32), db = [UInt8](repeating: 0, count: 32)
                    enc_sha256_pair(base + 1, a, base + 97, b, &da, &db)
                    #expect(da == DigestAlgorithm.sha256.digest(UnsafeRawBufferPointer(rebasing: all[1 ..< 1 + a])), "a \(a) with b \(b)")
                    #expect(db == DigestAlgorithm.sha256.digest(UnsafeRawBufferPointer(rebasing: all[97 ..< 97 + b])), "b \(b) with a \(a)")
                }
            }
            var da = [UInt8](repeating: 0, count: 32), db = [UInt8](repeating: 0, count: 32)
            enc_sha256_pair(nil, 0, nil, 0, &da, &db)
            #expect(da == DigestAlgorithm.sha256.digest(UnsafeRawBufferPointer(start: nil, count: 0)) && db == da)
        }
    }

    /// Signed, signed with SHA-512, unsigned, signed over other bytes,
    /// truncated, and signed by a stranger.
    static func files(_ signer: PrivateKey) throws -> [(String, [UInt8])] {
        let keys = (0 ..< 300).map { Fixtures.key($0) }, other = (300 ..< 420).map { Fixtures.key($0) }
        let good = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: keys, signer: signer, info: Fixtures.info())
        let good2 = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: other, signer: signer, info: Fixtures.info())
        let sha512 = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: other, signer: signer,
                                                    info: Fixtures.info(algorithm: "1.2.840.10045.4.3.4"))
        var meta = Fixtures.metadata()
        meta.signatureInfos = [Fixtures.info()]
        let bin = ExportWriter.exportBin(metadata: meta, keys: keys), otherBin = ExportWriter.exportBin(metadata: meta, keys: other)
        let der = try bin.withUnsafeBytes { try signer.sign($0, algorithm: .sha256) }
        let tampered = try ZipWriter.archive([ZipWriter.Member(name: "export.bin", data: otherBin, compress: true),
                                              ZipWriter.Member(name: "export.sig", data: ExportWriter.exportSig([(Fixtures.info(), 1, 1, der)]), compress: false)])
        let unsigned = try ZipWriter.archive([ZipWriter.Member(name: "export.bin", data: bin, compress: true)])
        let stranger = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: keys, signer: try PrivateKey(), info: Fixtures.info())
        return [("good", good), ("good2", good2), ("sha512", sha512), ("tampered", tampered), ("unsigned", unsigned),
                ("truncated", Array(good.prefix(good.count - 40))), ("stranger", stranger)]
    }

    /// What a file's opening gave, comparable.
    static func describe(_ r: Result<KeyFile, any Error>) throws -> String {
        switch r {
        case .success(let f): return "\(f.metadata) \(f.signature) \(try f.keys(in: .keys).map(\.keyData))"
        case .failure(let e as EncoreError): return "\(e.kind): \(e.message)"
        case .failure(let e): return "\(e)"
        }
    }

    @Test(arguments: [Verification.require, .report, .skip]) func eachFileOpensAsItDoesAlone(verification: Verification) throws {
        let signer = try PrivateKey()
        var options = KeyFileOptions(verification: verification, trust: try Fixtures.trust(signer))
        options.buffers = BufferPool(maxBytes: 1 << 20)
        let files = try Self.files(signer)
        let alone = try files.map { name, bytes in
            try Self.describe(Result { try KeyFile(bytes: bytes, options: KeyFileOptions(verification: verification, trust: options.trust)) })
        }
        if verification == .require { #expect(alone.filter { $0.contains("verified") }.count == 3) }
        for (i, a) in files.enumerated() {
            for (j, b) in files.enumerated() {
                let both = KeyFile.open([.bytes(a.1), .bytes(b.1)], options: options, keys: .decode)
                #expect(try Self.describe(both[0]) == alone[i], "\(a.0) opened with \(b.0)")
                #expect(try Self.describe(both[1]) == alone[j], "\(b.0) opened after \(a.0)")
            }
            #expect(try Self.describe(KeyFile.open([.bytes(a.1)], options: options, keys: .decode)[0]) == alone[i])
        }
    }

    @Test func poolReusesWhatItKeepsAndKeepsNoMoreThanItsLimit() throws {
        let pool = BufferPool(maxBytes: 3 << 20)
        #expect(BufferPool.capacity(for: 1000) == 1000 && BufferPool.capacity(for: 1 << 20 | 1) == 5 << 18)
        var first: UnsafeRawPointer?
        do {
            let a = try OwnedBytes(uninitializedCount: 1 << 20, pool: pool)
            first = a.buffer.baseAddress
        }
        // Freed into the pool, and handed out again for about that size.
        let again = try OwnedBytes(uninitializedCount: (1 << 20) - 5000, pool: pool)
        #expect(again.buffer.baseAddress == first && again.count == (1 << 20) - 5000)
        do {
            // Four of 1 MB freed: the pool (3 MB, `again` still out) keeps three.
            _ = try (0 ..< 4).map { _ in try OwnedBytes(uninitializedCount: 1 << 20, pool: pool) }
        }
        let kept = (0 ..< 4).compactMap { _ in pool.take(1 << 20) }
        #expect(kept.count == 3)
        for b in kept { pool.give(b.base, capacity: b.capacity) }
        // Small buffers are malloc's.
        #expect(pool.take(100) == nil)
    }
}
