import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport

/// xorshift64*: fast, deterministic, good enough for key material in a benchmark.
struct XorShift {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// An order-dependent digest of a key sequence: the benchmark checks that
/// the keys streamed out of a file are exactly the keys written into it.
struct KeyFingerprint: Equatable {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
    private(set) var count = 0

    init() {}

    init(value: UInt64, count: Int) {
        self.value = value
        self.count = count
    }

    mutating func add(_ k: ExposureKey) {
        let (a, b) = k.keyData.withUnsafeBytes {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        let fields = UInt64(UInt32(bitPattern: k.rollingStartIntervalNumber)) << 32
            | UInt64(UInt8(truncatingIfNeeded: k.rollingPeriod)) << 24
            | UInt64(UInt8(truncatingIfNeeded: k.transmissionRiskLevel)) << 16
            | UInt64(UInt8(truncatingIfNeeded: k.reportType.rawValue)) << 8
            | UInt64(UInt8(truncatingIfNeeded: k.daysSinceOnsetOfSymptoms.map { $0 + 100 } ?? 0))
        mix(a)
        mix(b)
        mix(fields)
        count += 1
    }

    private mutating func mix(_ w: UInt64) {
        value = (value ^ w) &* 0x0000_0100_0000_01B3
        value ^= value >> 29
    }
}

/// A signed key file written to disk, with what went into it.
struct GeneratedFile {
    var zipPath: String
    var publicKeyPath: String
    var keyCount: Int
    var zipBytes: Int
    var exportBinBytes: Int
    var fingerprint: KeyFingerprint
    var seconds: Double
}

/// Writes realistic signed key files: random 16-byte keys, rolling start
/// numbers spread over 14 days (today's keys with a shorter rolling period),
/// transmission risk 0...8, mostly confirmed tests, half with a days-since-onset.
enum Generator {
    static let keyID = "bench"
    static let keyVersion = "v1"
    static let signatureInfo = SignatureInfo(appBundleID: "org.encore.bench", verificationKeyVersion: keyVersion,
                                             verificationKeyID: keyID, signatureAlgorithm: "1.2.840.10045.4.3.2")
    /// Midnight UTC of 2024-01-01 in 10-minute intervals (a multiple of 144).
    static let today: Int32 = 2_839_968

    static func keys(count: Int, seed: UInt64) -> [ExposureKey] {
        var rng = XorShift(seed: seed)
        var out: [ExposureKey] = []
        out.reserveCapacity(count)
        var raw = (UInt64(0), UInt64(0))
        for _ in 0 ..< count {
            raw = (rng.next(), rng.next())
            let data = withUnsafeBytes(of: &raw) { KeyData($0) }
            let r = rng.next()
            let day = Int32(r % 14)
            let reportRoll = (r >> 8) % 10
            let reportType: ReportType = reportRoll < 7 ? .confirmedTest : reportRoll < 9 ? .confirmedClinicalDiagnosis : .selfReport
            out.append(ExposureKey(
                keyData: data,
                transmissionRiskLevel: Int32((r >> 16) % 9),
                rollingStartIntervalNumber: today - day * 144,
                rollingPeriod: day == 0 ? Int32(1 + (r >> 24) % 144) : 144,
                reportType: reportType,
                daysSinceOnsetOfSymptoms: (r >> 40) & 1 == 0 ? nil : Int32((r >> 41) % 36) - 14))
        }
        return out
    }

    /// Generates, signs and writes `<dir>/keys-<count>.zip` (and the signer's
    /// public key as `<dir>/public.pem`).
    static func write(count: Int, dir: String, seed: UInt64 = 0x5EED) throws -> GeneratedFile {
        var file: GeneratedFile?
        let seconds = try Timing.time {
            let keys = Generator.keys(count: count, seed: seed)
            var fingerprint = KeyFingerprint()
            for k in keys { fingerprint.add(k) }
            var meta = ExportMetadata()
            meta.startTimestamp = UInt64(today) * 600 - 86_400
            meta.endTimestamp = UInt64(today) * 600
            meta.region = "DE"
            meta.batchNum = 1
            meta.batchSize = 1
            let signer = try PrivateKey()
            let zip = try ExportWriter.signedKeyFile(metadata: meta, keys: keys, signer: signer, info: signatureInfo)
            let zipPath = "\(dir)/keys-\(count).zip"
            let pemPath = "\(dir)/public-\(count).pem"
            try Files.write(zipPath, zip)
            try Files.write(pemPath, signer.publicKeyPEM())
            let member = try ZipPeek.exportBin(zip)
            file = GeneratedFile(zipPath: zipPath, publicKeyPath: pemPath, keyCount: count, zipBytes: zip.count,
                                 exportBinBytes: member.uncompressedSize, fingerprint: fingerprint, seconds: 0)
        }
        file!.seconds = seconds
        return file!
    }

    /// `encore-bench gen --keys N --dir DIR`: writes the file and prints
    /// what went into it, one `name=value` a line.
    static func command(keys: Int, dir: String) throws {
        let f = try write(count: keys, dir: dir)
        print("zip=\(f.zipPath)\npem=\(f.publicKeyPath)\nkeys=\(f.keyCount)\nzip_bytes=\(f.zipBytes)")
        print("bin_bytes=\(f.exportBinBytes)\nfingerprint=\(f.fingerprint.value)\nseconds=\(f.seconds)")
    }

    /// Generates a file in a child process (so this one stays small).
    static func inChild(keys: Int, dir: String) throws -> GeneratedFile {
        let v = try Child.fields(["gen", "--keys", String(keys), "--dir", dir])
        guard let zip = v["zip"], let pem = v["pem"], let n = v["keys"].flatMap({ Int($0) }),
              let zipBytes = v["zip_bytes"].flatMap({ Int($0) }), let binBytes = v["bin_bytes"].flatMap({ Int($0) }),
              let fp = v["fingerprint"].flatMap({ UInt64($0) }), let seconds = v["seconds"].flatMap({ Double($0) })
        else { throw BenchError("gen printed an incomplete report: \(v)") }
        return GeneratedFile(zipPath: zip, publicKeyPath: pem, keyCount: n, zipBytes: zipBytes, exportBinBytes: binBytes,
                             fingerprint: KeyFingerprint(value: fp, count: n), seconds: seconds)
    }

    static func trustList(publicKeyPEM: [UInt8]) throws -> TrustList {
        let trust = TrustList()
        try trust.add(id: keyID, version: keyVersion, material: publicKeyPEM)
        return trust
    }
}
