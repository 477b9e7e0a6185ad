import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Glibc
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What hostile inputs cost in memory, measured as the growth of the
/// process's peak resident set while one KeyFile is opened. Serialized so
/// that these measurements do not overlap one another (other suites may
/// still run alongside; the bounds leave room for that).
@Suite(.serialized) struct HostileMemoryTests {
    /// The 4 GiB zero bomb lying about its size: declared small, with the
    /// ratio check off. It is inflated only up to the declared size plus one
    /// byte, so neither memory nor time depends on what it would inflate to.
    @Test func fourGiBZeroBombDeclaredSmall() throws {
        let (stream, _) = try HostileZipTests.zeroBomb(chunks: 4096)
        let off = ZipLimits(maxMemberSize: 512 << 20, maxTotalSize: 1 << 30, maxRatio: 0)
        for declared: UInt32 in [1000, 0, 1, 64 << 10, 1 << 20] {
            let zip = HostileZipTests.bombZip(stream, declaring: declared)
            let start = ContinuousClock.now
            let (k, grown) = HostileMemory.peakGrowth {
                kind { try KeyFile(bytes: zip, options: KeyFileOptions(verify: false, limits: off)) }
            }
            let elapsed = ContinuousClock.now - start
            #expect(k == .zipCorrupt, "declared \(declared): \(String(describing: k))")
            #expect(grown < 32 << 20, "declared \(declared): peak RSS grew by \(grown >> 20) MiB")
            #expect(elapsed < .seconds(5), "declared \(declared): took \(elapsed)")
        }
        // The same with the default limits (a declared size under the ratio floor).
        let zip = HostileZipTests.bombZip(stream, declaring: 1000)
        #expect(kind { try KeyFile(bytes: zip, options: KeyFileOptions(verify: false)) } == .zipCorrupt)
        // getrusage's ru_maxrss cannot be reset and keeps the peaks of
        // earlier tests and exited threads; read directly, it still shows
        // the bomb leaves no trace beyond the baseline of this process.
        let maxrssBefore = HostileMemory.maxrss()
        _ = kind { try KeyFile(bytes: zip, options: KeyFileOptions(verify: false, limits: off)) }
        #expect(HostileMemory.maxrss() - maxrssBefore < 32 << 20)
    }

    /// A control: a large valid file costs about its own size (the copy of
    /// export.bin the KeyFile keeps), not a multiple of it.
    @Test func validKeysCostAboutTheirBytes() {
        let bin = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: (0 ..< 100_000).map { Fixtures.key($0) })
        let (k, grown) = HostileMemory.peakGrowth { kind { try KeyFile(bytes: bin, options: KeyFileOptions(verify: false)) } }
        #expect(k == nil)
        #expect(grown <= HostileAmplification.bound(for: bin.count), "\(bin.count) bytes: peak grew by \(grown >> 20) MiB")
    }

    /// KNOWN ISSUE of the core: protobuf that costs 40–60 times its size in
    /// memory. 2 MiB inputs make the peak grow by 85–125 MiB:
    /// - export.bin with empty signature_info fields (32 00 repeated): the
    ///   scan keeps an 80-byte SignatureInfo per 2 bytes in
    ///   metadata.signatureInfos, for the life of the KeyFile;
    /// - one key (or one signature_info) made of unknown varint fields
    ///   (78 00 repeated): protobuf-c stores every unknown field (the arena
    ///   passes large requests on to malloc);
    /// - export.sig of empty TEKSignatures (0a 00 repeated) or unknown
    ///   fields: protobuf-c unpacks all of them before SignatureFile checks
    ///   the 64-signature limit, verifying or not.
    /// The zip limits only bound the bytes these come from: unbounded, a
    /// member of the default 512 MiB would have needed 20–30 GiB. The core
    /// now caps what decoding one message may allocate (MessageDecoder's
    /// arena limit, SignatureFile.decodeLimit) and the signature infos kept,
    /// so each case must end in an EncoreError within the bound.
    @Test(arguments: HostileAmplification.Case.allCases)
    func protobufAmplification(_ c: HostileAmplification.Case) throws {
        let input = try c.input(fields: 1 << 20)
        var outcome: HostileOutcome?
        let (_, grown) = HostileMemory.peakGrowth { outcome = hostileOpen(input, c.options) }
        // Whatever a fix does, the outcome stays an EncoreError or a file.
        if case .foreign(let error)? = outcome { Issue.record("\(c): not an EncoreError: \(error)") }
        if case .opened(let f)? = outcome { try hostileCheckConsistent(.opened(f), "\(c)") }
        let bound = HostileAmplification.bound(for: input.count)
        #expect(grown <= bound, "\(c): \(input.count) bytes made the peak grow by \(grown >> 20) MiB (bound \(bound >> 20) MiB)")
        // export.bin cases must be refused; an unreadable export.sig is
        // ignored when verification is off, by design.
        if case .opened? = outcome, [.signatureInfos, .keyUnknownFields, .signatureInfoUnknownFields].contains(c) {
            Issue.record("\(c): an export.bin that cannot be decoded within the limits was opened")
        }
    }
}

enum HostileAmplification {
    /// What opening `n` bytes may legitimately cost: the copy of export.bin
    /// (or the inflated members) and a little more, plus slack.
    static func bound(for n: Int) -> Int { 2 * n + (8 << 20) }

    enum Case: String, CaseIterable, Sendable, CustomStringConvertible {
        /// export.bin: `n` empty signature_info fields (2 bytes each); the
        /// metadata keeps an 80-byte SignatureInfo for each.
        case signatureInfos
        /// export.bin: one key whose message holds `n` unknown varint fields
        /// (2 bytes each); protobuf-c stores each unknown field.
        case keyUnknownFields
        /// export.bin: one signature_info with `n` unknown varint fields.
        case signatureInfoUnknownFields
        /// export.sig: `n` empty TEKSignatures; protobuf-c allocates every
        /// one before the 64-signature limit is checked.
        case manySignatures
        /// The same with verification on (ends in signatureMalformed).
        case manySignaturesVerifying
        /// export.sig: `n` unknown top-level varint fields.
        case signatureListUnknownFields

        var description: String { rawValue }

        var options: KeyFileOptions {
            self == .manySignaturesVerifying ? KeyFileOptions(trust: TrustList()) : KeyFileOptions(verify: false)
        }

        func input(fields n: Int) throws -> [UInt8] {
            func repeated(_ pair: [UInt8]) -> [UInt8] {
                var out: [UInt8] = []
                out.reserveCapacity(2 * n)
                for _ in 0 ..< n { out += pair }
                return out
            }
            let bin = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: [Fixtures.key(1)])
            func zip(sig: [UInt8]) throws -> [UInt8] {
                try ZipWriter.archive([.init(name: "export.bin", data: bin), .init(name: "export.sig", data: sig, compress: false)])
            }
            switch self {
            case .signatureInfos:
                return ExportFormat.header + repeated([0x32, 0x00])
            case .keyUnknownFields:
                let key = ProtoSamples.key([.keyData([UInt8](repeating: 7, count: 16))]) + repeated([0x78, 0x00])
                return ExportFormat.header + ProtoSamples.raw(.lengthDelimited(7, key))
            case .signatureInfoUnknownFields:
                return ExportFormat.header + ProtoSamples.raw(.lengthDelimited(6, repeated([0x78, 0x00])))
            case .manySignatures, .manySignaturesVerifying:
                return try zip(sig: repeated([0x0a, 0x00]))
            case .signatureListUnknownFields:
                return try zip(sig: repeated([0x78, 0x00]))
            }
        }
    }
}

/// Peak resident memory. getrusage's ru_maxrss is the process's lifetime
/// peak and also keeps the peaks of threads that exited, so it cannot show
/// what one call cost once anything earlier used more; the kernel's VmHWM
/// can be reset ("5" to /proc/self/clear_refs, Linux ≥ 4.0) and is used
/// when it can be, ru_maxrss otherwise.
enum HostileMemory {
    /// Runs `body` and returns its result and how much the peak grew.
    static func peakGrowth<T>(_ body: () -> T) -> (T, Int) {
        // Hand free heap memory back first, so that what `body` needs shows
        // up as new resident pages instead of reusing earlier tests' pages.
        _ = hostileMallocTrim(0)
        let resettable = resetPeak()
        let before = resettable ? (status("VmHWM") ?? 0) : maxrss()
        let result = body()
        let after = resettable ? (status("VmHWM") ?? 0) : maxrss()
        return (result, max(0, after - before))
    }

    /// Resets VmHWM to the current RSS; false when that is not possible.
    static func resetPeak() -> Bool {
        guard status("VmHWM") != nil, let f = fopen("/proc/self/clear_refs", "w") else { return false }
        let ok = fputs("5", f) >= 0
        return fclose(f) == 0 && ok
    }

    static func maxrss() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024 // kilobytes on Linux
    }

    /// A "Name: 1234 kB" line of /proc/self/status, in bytes.
    static func status(_ field: String) -> Int? {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 16384)
        let n = read(fd, &buf, buf.count)
        guard n > 0 else { return nil }
        for line in String(decoding: buf.prefix(n), as: UTF8.self).split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

/// glibc's malloc_trim (not in the Glibc module): returns free heap pages to the system.
@_silgen_name("malloc_trim")
func hostileMallocTrim(_ pad: Int) -> Int32
