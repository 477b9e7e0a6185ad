import EncoreCrypto
import EncoreStorage
import EncoreSupport
import EncoreWire

/// What to do about a key file's signature.
public enum Verification: Sendable {
    /// Refuse a file that no trusted key signed (the default).
    case require
    /// Check the signature and record the outcome, but open the file anyway:
    /// for tools that show why a file is not trusted.
    case report
    /// Do not check; the outcome is `.skipped`.
    case skip
}

/// What opening a key file may be told.
public struct KeyFileOptions {
    public var verification: Verification = .require
    public var trust: TrustList?
    public var limits: ZipLimits = .default
    /// Called while export.bin is checked (bytes done of total); may cancel.
    public var progress: ProgressHandler?
    /// Where the file's large buffers come from and go back to (matching
    /// reuses them from file to file); nil: malloc.
    package var buffers: BufferPool?

    public init(verify: Bool = true, trust: TrustList? = nil, limits: ZipLimits = .default, progress: ProgressHandler? = nil) {
        self.init(verification: verify ? .require : .skip, trust: trust, limits: limits, progress: progress)
    }

    public init(verification: Verification, trust: TrustList? = nil, limits: ZipLimits = .default, progress: ProgressHandler? = nil) {
        self.verification = verification
        self.trust = trust
        self.limits = limits
        self.progress = progress
    }
}

/// A diagnosis key file, opened and checked: the container is valid, every
/// field of export.bin decodes, and (unless turned off) a trusted key signed
/// it. Keeps export.bin in memory and streams its keys on demand, so memory
/// does not grow with decoded keys. Immutable, so safe to share.
public final class KeyFile: Sendable {
    /// Where the last readKeys() of each list ended.
    private let lastCursors = Locked<[KeyList: KeyCursor]>([:])
    public let metadata: ExportMetadata
    public let signature: SignatureOutcome
    /// True when the input was a zip, false for a bare export.bin.
    public let isZip: Bool
    private let exportBin: OwnedBytes

    /// Opens a key file from its bytes: a zip with export.bin (+ export.sig),
    /// or a bare export.bin (which has no signature).
    public convenience init(bytes: UnsafeRawBufferPointer, options: KeyFileOptions = KeyFileOptions()) throws {
        let members = try KeyFile.members(of: bytes, options: options)
        try self.init(members, options: options)
    }

    public convenience init(bytes: [UInt8], options: KeyFileOptions = KeyFileOptions()) throws {
        try self.init(bytes: bytes, options: options, keys: .decode)
    }

    package convenience init(bytes: [UInt8], options: KeyFileOptions, keys: ExportReader.KeyCheck) throws {
        let members = try bytes.withUnsafeBytes { try KeyFile.members(of: $0, options: options) }
        try self.init(members, options: options, keys: keys)
    }

    /// Opens a key file from a path. Files larger than the total size limit
    /// (plus room for zip headers) are refused before they are read.
    public convenience init(path: String, options: KeyFileOptions = KeyFileOptions()) throws {
        try self.init(path: path, options: options, keys: .decode)
    }

    /// With `keys: .countFields` the keys are not decoded at open but when
    /// read (`forEachKeyInFileOrder`), and the metadata counts key fields,
    /// not valid keys: for a reader that reads every key once anyway.
    package convenience init(path: String, options: KeyFileOptions, keys: ExportReader.KeyCheck) throws {
        try self.init(KeyFile.members(path: path, options: options), options: options, keys: keys)
    }

    /// Checks the members; `sha256` is export.bin's digest when the caller
    /// has it already (see KeyFile.open(_:options:keys:)).
    package init(_ members: Members, options: KeyFileOptions, keys: ExportReader.KeyCheck = .decode, sha256: [UInt8]? = nil) throws {
        let bin = members.bin, sig = members.sig
        do {
            let metadata = try ExportReader.scan(bin.buffer, progress: options.progress, keys: keys)
            switch options.verification {
            case .require:
                let outcome = try SignatureVerifier.verify(exportBin: bin.buffer, metadata: metadata,
                                                           signatures: try sig.map { try SignatureFile.parse($0.buffer) } ?? [],
                                                           trust: options.trust, sha256: sha256)
                if let error = outcome.error { throw error }
                self.signature = outcome
            case .report:
                self.signature = SignatureVerifier.report(exportBin: bin.buffer, metadata: metadata, sig: sig, trust: options.trust)
            case .skip:
                // An unverified file may carry an unreadable export.sig.
                let first = sig.flatMap { try? SignatureFile.parse($0.buffer) }?.first?.info
                self.signature = SignatureOutcome(status: .skipped, keyID: first?.verificationKeyID, keyVersion: first?.verificationKeyVersion,
                                                  reason: "verification was turned off")
            }
            self.metadata = metadata
        } catch let e as EncoreError where e.kind != .cancelled {
            // A damaged export.bin whose CRC was deferred is reported as
            // damaged, as if the CRC had been checked first.
            try members.binCRC?.check(bin.buffer)
            throw e
        }
        self.isZip = members.isZip
        self.exportBin = bin
    }

    /// What opening found in a file: export.bin, export.sig, and export.bin's
    /// CRC check when it was deferred (only when the signature is required:
    /// see KeyFileArchive.extract).
    package struct Members {
        package var bin: OwnedBytes
        package var sig: OwnedBytes?
        package var isZip: Bool
        package var binCRC: KeyFileArchive.CRCCheck?
    }

    /// The members of a file read from a path. Files larger than the total
    /// size limit (plus room for zip headers) are refused before they are
    /// read; the file's bytes are released once the members are out of
    /// them, before export.bin is checked: peak memory is not zip + export.bin.
    package static func members(path: String, options: KeyFileOptions) throws -> Members {
        let slack: UInt64 = 1 << 20
        let maxFile = options.limits.maxTotalSize > UInt64.max - slack ? UInt64.max : options.limits.maxTotalSize + slack
        return try members(of: FileReader.read(path: path, maxSize: maxFile, pool: options.buffers, tooLarge: .zipLimit), options: options)
    }

    /// The members of a file read into memory; a bare export.bin is used as
    /// it is, without a copy.
    static func members(of file: OwnedBytes, options: KeyFileOptions) throws -> Members {
        if ExportFormat.looksLikeExport(file.buffer) {
            guard UInt64(file.count) <= options.limits.maxMemberSize else {
                throw EncoreError(.zipLimit, "export.bin of \(file.count) bytes is larger than the member limit of \(options.limits.maxMemberSize)")
            }
            return Members(bin: file, sig: nil, isZip: false)
        }
        return try members(of: file.buffer, options: options)
    }

    /// export.bin and export.sig of a zip, or the bytes of a bare export.bin.
    package static func members(of bytes: UnsafeRawBufferPointer, options: KeyFileOptions) throws -> Members {
        let limits = options.limits
        if ExportFormat.looksLikeExport(bytes) {
            guard UInt64(bytes.count) <= limits.maxMemberSize else {
                throw EncoreError(.zipLimit, "export.bin of \(bytes.count) bytes is larger than the member limit of \(limits.maxMemberSize)")
            }
            return Members(bin: try OwnedBytes(copying: bytes), sig: nil, isZip: false)
        }
        do {
            let archive = try KeyFileArchive.extract(bytes, limits: limits, deferBinCRC: options.verification == .require, pool: options.buffers)
            return Members(bin: archive.exportBin, sig: archive.exportSig, isZip: true, binCRC: archive.binCRC)
        } catch let e as EncoreError where e.kind == .zipTruncated && !ZipDirectory.looksLikeZip(bytes) {
            // Cannot even be found to be a zip: "not a zip". One that starts
            // like a zip but breaks off keeps its more precise status.
            throw EncoreError(.zipNotZip, "input is neither a zip archive nor an export.bin (\(bytes.count) bytes)")
        }
    }

    /// export.bin (shared, not copied): what a reader that trusts this file
    /// (it was verified) opens again without the zip and its inflating.
    package var exportBinBuffer: OwnedBytes { exportBin }

    public func count(of list: KeyList) -> UInt64 {
        switch list {
        case .keys: return metadata.keyCount
        case .revisedKeys: return metadata.revisedKeyCount
        }
    }

    /// Delivers up to `maxCount` valid keys from the cursor on and advances
    /// it; returns how many were delivered (fewer only at the end of the list).
    public func read(_ cursor: inout KeyCursor, maxCount: Int, _ body: (ExposureKey) throws -> Void) throws -> Int {
        let decoder = try MessageDecoder()
        return try ExportReader.read(exportBin.buffer, cursor: &cursor, maxCount: maxCount, decoder: decoder, body)
    }

    /// Delivers up to `maxCount` valid keys of `list` from index `first` on;
    /// returns how many (fewer only at the end of the list). Reading a list
    /// in consecutive chunks costs one pass over the file: where the last
    /// read of each list ended is kept. Safe from several threads.
    public func readKeys(_ list: KeyList, from first: UInt64, maxCount: Int, _ body: (ExposureKey) throws -> Void) throws -> Int {
        let kept = lastCursors.withLock { $0[list] }
        var cursor = kept.flatMap { $0.index <= first ? $0 : nil } ?? KeyCursor(list: list)
        while cursor.index < first {
            if try read(&cursor, maxCount: Int(clamping: first - cursor.index), { _ in }) == 0 { break }
        }
        let n = try read(&cursor, maxCount: maxCount, body)
        lastCursors.withLock { $0[list] = cursor }
        return n
    }

    /// Calls `body` with every valid key of a list, in file order.
    public func forEachKey(in list: KeyList, _ body: (ExposureKey) throws -> Void) throws {
        var cursor = KeyCursor(list: list)
        _ = try read(&cursor, maxCount: Int.max, body)
    }

    /// Calls `body` with every valid key of both lists in file order,
    /// checking each as it is read, except those `prefilter` drops; returns
    /// how many key fields there were and how many were dropped.
    package func forEachKeyInFileOrder(prefilter: KeyPrefilter? = nil,
                               _ body: (KeyList, ExposureKey) throws -> Void) throws -> (fields: UInt64, dropped: UInt64) {
        try ExportReader.forEachKey(exportBin.buffer, decoder: try MessageDecoder(), prefilter: prefilter, body)
    }

    /// All valid keys of a list (convenient for small files and tests).
    public func keys(in list: KeyList = .keys) throws -> [ExposureKey] {
        var out: [ExposureKey] = []
        out.reserveCapacity(Int(clamping: count(of: list)))
        try forEachKey(in: list) { out.append($0) }
        return out
    }

    /// The raw export.bin, header included.
    public func withExportBin<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(exportBin.buffer)
    }
}
