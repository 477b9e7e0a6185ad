// encore.h section: keyfile, part 2
import CEncoreTypes
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreWire

/// An opened key file as C sees it: the core's KeyFile and the C view of
/// its metadata.
final class KeyFileHandle: @unchecked Sendable {
    // @unchecked: `info` holds pointers into `strings`; both are immutable.
    let file: KeyFile
    let info: encore_keyfile_info
    private let strings = CStrings()

    init(_ file: KeyFile) {
        self.file = file
        let m = file.metadata
        var info = encore_keyfile_info()
        info.start_timestamp = m.startTimestamp ?? 0
        info.end_timestamp = m.endTimestamp ?? 0
        info.region = strings.keep(m.region)
        info.batch_num = m.batchNum ?? 0
        info.batch_size = m.batchSize ?? 0
        info.key_count = m.keyCount
        info.revised_key_count = m.revisedKeyCount
        info.invalid_key_count = m.invalidKeyCount
        info.signature_status = signatureStatusCode(file.signature.status)
        info.is_zip = file.isZip ? 1 : 0
        info.signature_key_id = strings.keep(file.signature.keyID)
        info.signature_key_version = strings.keep(file.signature.keyVersion)
        self.info = info
    }
}

func signatureStatusCode(_ s: SignatureOutcome.Status) -> Int32 {
    switch s {
    case .verified: return ENCORE_SIGNATURE_VERIFIED
    case .unsigned: return ENCORE_SIGNATURE_UNSIGNED
    case .untrusted: return ENCORE_SIGNATURE_UNTRUSTED
    case .invalid: return ENCORE_SIGNATURE_INVALID
    case .skipped: return ENCORE_SIGNATURE_SKIPPED
    }
}

/// The core's options from the C struct (NULL: the defaults), for calls
/// that take a client: a NULL trust is the client's trust list.
func keyFileOptions(_ pointer: UnsafePointer<encore_keyfile_options>?, client: EncoreClient) throws -> KeyFileOptions {
    var options = try keyFileOptions(pointer)
    if options.trust == nil { options.trust = client.trust }
    return options
}

/// The core's options from the C struct (NULL: the defaults; a NULL trust
/// trusts no key).
func keyFileOptions(_ pointer: UnsafePointer<encore_keyfile_options>?) throws -> KeyFileOptions {
    guard let pointer else { return KeyFileOptions() }
    let o = try checkedStruct(pointer, "encore_keyfile_options_init")
    let verification: Verification
    switch o.verify {
    case UInt32(ENCORE_VERIFY_SKIP): verification = .skip
    case UInt32(ENCORE_VERIFY_REQUIRE): verification = .require
    case UInt32(ENCORE_VERIFY_REPORT): verification = .report
    default: throw EncoreError(.invalidArgument, "options.verify must be ENCORE_VERIFY_SKIP, _REQUIRE or _REPORT, not \(o.verify)")
    }
    guard o.reserved == 0 else { throw EncoreError(.invalidArgument, "options.reserved must be 0") }
    guard o.max_member_size > 0, o.max_total_size > 0 else {
        throw EncoreError(.invalidArgument, "options.max_member_size and max_total_size must be greater than 0")
    }
    var options = KeyFileOptions(
        verification: verification,
        trust: try o.trust.map { try borrow($0, as: TrustList.self, "options.trust") },
        limits: ZipLimits(maxMemberSize: o.max_member_size, maxTotalSize: o.max_total_size, maxRatio: o.max_ratio))
    options.progress = progressHandler(o.progress, o.progress_context)
    return options
}

/// Writes the default options to *options, whose size the caller gives as
/// `struct_size` (pass sizeof *options): verification required, no trusted
/// keys, members up to 512 MiB, 1 GiB in all, ratio limit 100, no progress.
/// Fields of a newer header that this library does not know are zeroed.
@c public func encore_keyfile_options_init(_ options: UnsafeMutablePointer<encore_keyfile_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        let d = ZipLimits.default
        o.verify = UInt32(ENCORE_VERIFY_REQUIRE)
        o.max_member_size = d.maxMemberSize
        o.max_total_size = d.maxTotalSize
        o.max_ratio = d.maxRatio
    }
}

/// Opens a key file from memory: a zip with export.bin and optional
/// export.sig, or a bare export.bin. `options` may be NULL (defaults: an
/// unsigned or untrusted file is refused). The bytes are not needed after
/// the call. On success *out is a new handle for encore_keyfile_free().
@c public func encore_keyfile_open_bytes(_ data: UnsafePointer<UInt8>?, _ len: Int, _ options: UnsafePointer<encore_keyfile_options>?, _ out: UnsafeMutablePointer<encore_keyfile_ptr?>?) -> encore_status {
    guarded {
        let bytes = try buffer(data, len, "data")
        let out = try required(out, "out")
        let file = try KeyFile(bytes: bytes, options: keyFileOptions(options))
        out.pointee = retainedHandle(KeyFileHandle(file))
    }
}

/// Opens a key file from a path, as encore_keyfile_open_bytes() does.
@c public func encore_keyfile_open_path(_ path: UnsafePointer<CChar>?, _ options: UnsafePointer<encore_keyfile_options>?, _ out: UnsafeMutablePointer<encore_keyfile_ptr?>?) -> encore_status {
    guarded {
        let path = try text(path, "path")
        let out = try required(out, "out")
        let file = try KeyFile(path: path, options: keyFileOptions(options))
        out.pointee = retainedHandle(KeyFileHandle(file))
    }
}

/// Releases a key file handle; NULL does nothing. Strings in its
/// encore_keyfile_info become invalid.
@c public func encore_keyfile_free(_ file: encore_keyfile_ptr?) {
    release(file)
}

/// Writes what the file says about itself to *info. The strings in it point
/// into the handle and live as long as it does.
@c public func encore_keyfile_get_info(_ file: encore_keyfile_ptr?, _ info: UnsafeMutablePointer<encore_keyfile_info>?) -> encore_status {
    writeHeld(file, as: KeyFileHandle.self, "file", info, "info") { $0.info }
}

/// Copies valid keys of a list (ENCORE_KEYS or ENCORE_REVISED_KEYS), from
/// index `first` on, as every list is copied (see "Lists"). Reading a list
/// in consecutive chunks costs one pass over the file.
@c public func encore_keyfile_copy_keys(_ file: encore_keyfile_ptr?, _ list: Int32, _ first: UInt64, _ out: UnsafeMutablePointer<encore_key>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let handle = try borrow(file, as: KeyFileHandle.self, "file")
        let which: KeyList
        switch list {
        case ENCORE_KEYS: which = .keys
        case ENCORE_REVISED_KEYS: which = .revisedKeys
        default: throw EncoreError(.invalidArgument, "list must be ENCORE_KEYS or ENCORE_REVISED_KEYS, not \(list)")
        }
        try copyOut(first: first, out, element_size, capacity, copied, count: { handle.file.count(of: which) }) { start, slots in
            guard start < handle.file.count(of: which) else { return 0 }
            var n = 0
            return try handle.file.readKeys(which, from: start, maxCount: slots.count) { key in
                slots.put(encore_key(key), at: n)
                n += 1
            }
        }
    }
}

extension encore_key {
    init(_ k: ExposureKey) {
        self.init()
        struct_size = structSize(encore_key.self)
        k.keyData.withUnsafeBytes { src in
            withUnsafeMutableBytes(of: &key_data) { $0.copyMemory(from: src) }
        }
        transmission_risk_level = k.transmissionRiskLevel
        rolling_start_interval_number = k.rollingStartIntervalNumber
        rolling_period = k.rollingPeriod
        report_type = k.reportType.rawValue
        days_since_onset_of_symptoms = k.daysSinceOnsetOfSymptoms ?? 0
        has_days_since_onset_of_symptoms = k.daysSinceOnsetOfSymptoms == nil ? 0 : 1
    }
}
