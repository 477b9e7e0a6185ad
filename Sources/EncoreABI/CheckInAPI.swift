// encore.h section: checkin, part 1
// The C functions of check-ins: CWA event registration (issue 16), and the
// list of visits, CWA's and CrowdNotifier's (a private CrowdNotifier
// check-in's QR-code calls: PrivateCheckInAPI.swift).
import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreKeyFiles
import EncoreSupport
import EncoreTestResults

public typealias encore_trace_location_ptr = OpaquePointer
public typealias encore_checkin_list_ptr = OpaquePointer
public typealias encore_checkin_risk_config_ptr = OpaquePointer
public typealias encore_checkin_assessment_ptr = OpaquePointer

final class TraceLocationHandle: @unchecked Sendable {
    // @unchecked: immutable after init (strings owned by `strings`).
    let location: TraceLocation
    let strings = CStrings()
    let description: UnsafePointer<CChar>?
    let address: UnsafePointer<CChar>?

    init(_ l: TraceLocation) {
        location = l
        description = strings.keep(l.description)
        address = strings.keep(l.address)
    }
}

typealias CheckInListHandle = Held<[CheckIn]>
typealias CheckInRiskConfigHandle = Held<PresenceTracingRiskConfiguration>
typealias CheckInAssessmentHandle = Held<PresenceTracingAssessment>

/// Writes 32 bytes into a C uint8_t[32] field.
func copy32(_ bytes: [UInt8], into field: inout (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                                                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
    withUnsafeMutableBytes(of: &field) { out in bytes.prefix(32).withUnsafeBytes { out.copyMemory(from: $0) } }
}

func bytesOf<T>(_ value: T, count: Int) -> [UInt8] {
    withUnsafeBytes(of: value) { Array($0.prefix(count)) }
}

// MARK: - QR codes

/// Reads a CWA event QR code (`https://e.coronawarn.app?v=1#{base64url}`,
/// padding allowed): ENCORE_ERR_QR_NOT_CWA for another code,
/// ENCORE_ERR_QR_VERSION, ENCORE_ERR_QR_ENCODING (not base64url),
/// ENCORE_ERR_QR_MALFORMED (not a QRCodePayload), ENCORE_ERR_QR_INVALID
/// (what CWA's app refuses: an empty description or address, one over 255
/// characters or of several lines, a start without an end, an end before
/// the start, a seed not of 16 bytes; the message names the field and the
/// rule), ENCORE_ERR_QR_TOO_LARGE. On success *out is a location for
/// encore_trace_location_free(); nothing is stored.
@c public func encore_trace_location_parse(_ qr_code: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<encore_trace_location_ptr?>?) -> encore_status {
    guarded {
        let text = try text(qr_code, "qr_code")
        try output(out, "out") { retainedHandle(TraceLocationHandle(try CheckInQRCode.parse(text))) }
    }
}

/// The location of a QRCodePayload's bytes (what follows "#", decoded).
@c public func encore_trace_location_parse_payload(_ payload: UnsafePointer<UInt8>?, _ length: Int, _ out: UnsafeMutablePointer<encore_trace_location_ptr?>?) -> encore_status {
    guarded {
        let bytes = Array(try buffer(payload, length, "payload"))
        try output(out, "out") { retainedHandle(TraceLocationHandle(try CheckInQRCode.location(payload: bytes))) }
    }
}

/// Writes what the location's QR code says, its location id and hash.
@c public func encore_trace_location_get_info(_ location: encore_trace_location_ptr?, _ info: UnsafeMutablePointer<encore_trace_location_info>?) -> encore_status {
    guarded {
        let h = try borrow(location, as: TraceLocationHandle.self, "location")
        let l = h.location
        var i = encore_trace_location_info()
        i.version = l.version
        i.description = h.description
        i.address = h.address
        i.start_timestamp = l.startTimestamp
        i.end_timestamp = l.endTimestamp
        i.location_type = l.locationType
        i.default_check_in_length_minutes = l.defaultCheckInLengthMinutes
        copy32(l.locationId, into: &i.location_id)
        copy32(l.locationIdHash, into: &i.location_id_hash)
        i.payload_length = UInt64(l.payload.count)
        i.automatic_length_seconds = l.defaultCheckInSeconds
        try writeOutput(i, to: info, "info")
    }
}

/// Releases a location; NULL does nothing.
@c public func encore_trace_location_free(_ location: encore_trace_location_ptr?) {
    release(location)
}

// MARK: - The crypto of protected reports (known answers, hosts' own use)

/// Encrypts a check-in record under the keys of `location_id` (32 bytes):
/// AES-256-CBC with PKCS#7 and `iv` (16 bytes; NULL: a random one), MAC
/// HMAC-SHA256 over iv || ciphertext.
@c public func encore_checkin_report_encrypt(_ location_id: UnsafePointer<UInt8>?, _ location_id_length: Int, _ record: UnsafePointer<encore_checkin_record>?, _ iv: UnsafePointer<UInt8>?, _ iv_length: Int, _ out: UnsafeMutablePointer<encore_checkin_report>?) -> encore_status {
    guarded {
        let id = Array(try buffer(location_id, location_id_length, "location_id"))
        guard id.count == 32 else { throw EncoreError(.invalidArgument, "location_id is 32 bytes, not \(id.count)") }
        let r: encore_checkin_record = try readInput(UnsafeRawPointer(try required(record, "record")), "record")
        try checkOutput(out, "out")
        var ivBytes = Array(try buffer(iv, iv_length, "iv"))
        if iv == nil { ivBytes = try SecureRandom.bytes(CheckInCrypto.ivBytes) }
        guard ivBytes.count == CheckInCrypto.ivBytes else { throw EncoreError(.invalidArgument, "iv is 16 bytes, not \(ivBytes.count)") }
        let plain = CheckInRecordCodec.encode(startInterval: r.start_interval_number, period: r.period, transmissionRiskLevel: r.transmission_risk_level)
        let sealed = try CheckInCrypto.encrypt(record: plain, keys: CheckInCrypto.Keys(locationId: id), iv: ivBytes)
        try writeOutput(protectedReport(locationIdHash: TraceLocation.locationIdHash(id), iv: ivBytes, mac: sealed.mac, ciphertext: sealed.ciphertext),
                        to: out, "out")
    }
}

/// Opens a protected report with the keys of `location_id`: the MAC is
/// checked in constant time before anything is decrypted.
/// ENCORE_ERR_REPORT_MAC when it does not verify; ENCORE_ERR_REPORT_INVALID
/// for wrong lengths, bad padding or a record that does not decode.
@c public func encore_checkin_report_decrypt(_ location_id: UnsafePointer<UInt8>?, _ location_id_length: Int, _ report: UnsafePointer<encore_checkin_report>?, _ out: UnsafeMutablePointer<encore_checkin_record>?) -> encore_status {
    guarded {
        let id = Array(try buffer(location_id, location_id_length, "location_id"))
        guard id.count == 32 else { throw EncoreError(.invalidArgument, "location_id is 32 bytes, not \(id.count)") }
        let r: encore_checkin_report = try readInput(UnsafeRawPointer(try required(report, "report")), "report")
        try checkOutput(out, "out")
        guard r.encrypted_record_length <= 32 else { throw EncoreError(.reportInvalid, "encrypted_record_length \(r.encrypted_record_length) is above 32") }
        let iv = bytesOf(r.iv, count: 16), mac = bytesOf(r.mac, count: 32)
        let sealed = bytesOf(r.encrypted_record, count: Int(r.encrypted_record_length))
        let opened = try iv.withUnsafeBytes { i in
            try sealed.withUnsafeBytes { s in try mac.withUnsafeBytes { try CheckInCrypto.open(iv: i, ciphertext: s, mac: $0, keys: CheckInCrypto.Keys(locationId: id)) } }
        }
        switch opened {
        case .failure(.mac): throw EncoreError(.reportMAC, "the report's MAC does not verify with this location's key")
        case .failure(.lengths): throw EncoreError(.reportInvalid, "the report's ciphertext is not whole AES blocks")
        case .failure(.padding): throw EncoreError(.reportInvalid, "the report's padding is wrong")
        case .success(let plain):
            guard let v = CheckInRecordCodec.decode(plain), let s = UInt32(exactly: v.start), let p = UInt32(exactly: v.period),
                  let t = UInt32(exactly: v.trl) else {
                throw EncoreError(.reportInvalid, "the report's plaintext is not a CheckInRecord")
            }
            try writeOutput(encore_checkin_record(struct_size: 0, start_interval_number: s, period: p, transmission_risk_level: t), to: out, "out")
        }
    }
}

/// A visit's times as a submission reports them, with CWA's production
/// parameters (visits under 10 minutes dropped, aerosol decay added,
/// aligned to 10-minute intervals). *reported is 0 for a dropped visit
/// (*out_start and *out_end are then left alone).
@c public func encore_checkin_derive_times(_ start: Int64, _ end: Int64, _ out_start: UnsafeMutablePointer<Int64>?, _ out_end: UnsafeMutablePointer<Int64>?, _ reported: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let outStart = try required(out_start, "out_start"), outEnd = try required(out_end, "out_end"), flag = try required(reported, "reported")
        let derived = try CheckInSubmissionParameters.cwa.derive(TimeSpan(start: start, end: end))
        if let derived {
            outStart.pointee = derived.start
            outEnd.pointee = derived.end
        }
        flag.pointee = derived == nil ? 0 : 1
    }
}

// MARK: - Check-ins in the store

/// Checks in at the place of a QR code (CWA, SwissCovid, NotifyMe; a CWA
/// one read as encore_trace_location_parse() does) from `start` (unix
/// seconds) at the client's time; `end` -1 leaves the user checked in
/// until the place's automatic length has passed. `mode` says what is kept
/// (see ENCORE_CHECKIN_MODE_*): DIARY; PRIVATE, for SwissCovid and
/// NotifyMe QR codes only (only the day and each hour's c1, c2, c3 and
/// nonce, nothing of the venue); or DEFAULT, the client's
/// encore_client_options.checkin_mode, with which a client whose default is
/// PRIVATE still keeps a CWA check-in as a diary one (it cannot be
/// private). ENCORE_ERR_CHECKIN_TIMES for an end before the start;
/// ENCORE_ERR_INVALID_ARGUMENT for another mode or asking PRIVATE for a
/// CWA check-in (its warnings are found by its location id). Thread-safe
/// as the client is. `id` (may be NULL) gets the check-in's id.
@c public func encore_checkin_add(_ client: encore_client_ptr?, _ qr_code: UnsafePointer<CChar>?, _ start: Int64, _ end: Int64, _ mode: Int32, _ id: UnsafeMutablePointer<Int64>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let text = try text(qr_code, "qr_code")
        guard end >= -1 else { throw EncoreError(.checkInTimes, "end must be a time or -1 (checked in), not \(end)") }
        let isPrivate = try checkInMode(mode) ?? (c.privateCheckIns && CrowdNotifierQRCode.kind(of: text) != nil)
        let made = try c.checkIns.checkIn(qrCode: text, start: start, end: end == -1 ? nil : end, now: try c.now(), isPrivate: isPrivate)
        id?.pointee = made.id
    }
}

/// A check-in mode of the C API: nil for ENCORE_CHECKIN_MODE_DEFAULT,
/// else whether it is private.
func checkInMode(_ mode: Int32) throws -> Bool? {
    switch mode {
    case ENCORE_CHECKIN_MODE_DEFAULT: return nil
    case ENCORE_CHECKIN_MODE_DIARY: return false
    case ENCORE_CHECKIN_MODE_PRIVATE: return true
    default: throw EncoreError(.invalidArgument, "mode is \(mode): ENCORE_CHECKIN_MODE_DEFAULT, _DIARY or _PRIVATE")
    }
}

/// Checks out: the check-in ends at `end` (not before its start).
/// ENCORE_ERR_NOT_FOUND for an unknown id; ENCORE_ERR_CHECKIN_QR_REQUIRED
/// for a private check-in (it kept nothing of its venue: use
/// encore_checkin_end_with_qr()), which is left unchanged.
@c public func encore_checkin_end(_ client: encore_client_ptr?, _ id: Int64, _ end: Int64) -> encore_status {
    guarded { try CheckInService(store: clientStore(client)).checkOut(id: id, end: end) }
}

/// Sets a check-in's times (`end` -1: checked in again).
/// ENCORE_ERR_CHECKIN_QR_REQUIRED for a private check-in: use
/// encore_checkin_edit_with_qr(); it is left unchanged.
@c public func encore_checkin_edit(_ client: encore_client_ptr?, _ id: Int64, _ start: Int64, _ end: Int64) -> encore_status {
    guarded {
        guard end >= -1 else { throw EncoreError(.checkInTimes, "end must be a time or -1 (checked in), not \(end)") }
        try CheckInService(store: clientStore(client)).edit(id: id, start: start, end: end == -1 ? nil : end)
    }
}

/// Deletes a check-in and its warnings; `existed` (may be NULL) tells whether there was one.
@c public func encore_checkin_delete(_ client: encore_client_ptr?, _ id: Int64, _ existed: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let gone = try CheckInService(store: clientStore(client)).delete(id: id)
        existed?.pointee = gone ? 1 : 0
    }
}

/// The check-ins, oldest first, after closing those whose automatic end
/// has come and deleting those that ended over 10 days before the client's
/// time. On
/// success *out is a list for encore_checkin_list_free().
@c public func encore_checkin_list_open(_ client: encore_client_ptr?, _ out: UnsafeMutablePointer<encore_checkin_list_ptr?>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        _ = try required(out, "out")
        let list = try CheckInService(store: s).list(now: now)
        try output(out, "out") { retainedHandle(CheckInListHandle(list)) }
    }
}

/// Writes the number of check-ins in a list to *count.
@c public func encore_checkin_list_count(_ list: encore_checkin_list_ptr?, _ count: UnsafeMutablePointer<Int>?) -> encore_status {
    heldCount(list, as: CheckInListHandle.self, count)
}

/// Copies check-ins first ..< first + capacity of a list (see "Lists"). The
/// description and address of each are copied into encore_bytes the caller
/// owns: release both of every copied element with encore_bytes_free()
/// (they stay valid after the list is freed). A private check-in
/// (mode ENCORE_CHECKIN_MODE_PRIVATE) is a private visit: its kind and
/// times, empty texts and a location_id_hash of zeros.
@c public func encore_checkin_list_copy(_ list: encore_checkin_list_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_checkin_info>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let checkIns = try borrow(list, as: CheckInListHandle.self, "list").value
        // Nothing for the caller to free after a failure (copyOutOwning).
        try copyOutOwning(checkIns, first: first, out, element_size, capacity, copied) { c, own in
            var i = encore_checkin_info()
            i.struct_size = structSize(encore_checkin_info.self)
            i.submitted = c.submitted ? 1 : 0
            i.id = c.id
            i.start = c.start
            i.end = c.end ?? -1
            i.auto_end = c.autoEnd
            i.description = try own(c.description)
            i.address = try own(c.address)
            copy32(c.locationIdHash, into: &i.location_id_hash)
            i.kind = Int32(c.kind.rawValue)
            i.created = c.created
            i.mode = c.isPrivate ? ENCORE_CHECKIN_MODE_PRIVATE : ENCORE_CHECKIN_MODE_DIARY
            return i
        }
    }
}

/// Releases a list; NULL does nothing.
@c public func encore_checkin_list_free(_ list: encore_checkin_list_ptr?) {
    release(list)
}

// MARK: - Warnings

/// The seam of the sync of warnings: a trace warning package as downloaded
/// (a zip of export.bin + export.sig whose export.bin is a bare
/// TraceWarningPackage; 0 bytes is the empty package) is verified as key
/// files are (`options`: trust and limits; NULL, or a NULL trust: the client's trust list; its
/// verification must be ENCORE_VERIFY_REQUIRE, the default: nothing
/// unverified is stored), and its warnings for the stored
/// check-ins (not those the user submitted) are stored, once however often
/// a package is matched. Reports that fail (wrong lengths, MAC, padding, a
/// record breaking the rules) are skipped and counted in summary->skipped.
/// ENCORE_ERR_WARNING_MALFORMED when export.bin cannot be walked at all.
/// `summary` may be NULL.
@c public func encore_checkin_match_package(_ client: encore_client_ptr?, _ package: UnsafePointer<UInt8>?, _ length: Int, _ options: UnsafePointer<encore_keyfile_options>?, _ summary: UnsafeMutablePointer<encore_warning_match_summary>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let (s, now) = (c.store, try c.now())
        let bytes = Array(try buffer(package, length, "package"))
        let o = try keyFileOptions(options, client: c)
        guard o.verification == .require else {
            throw EncoreError(.invalidArgument, "options->verification must be ENCORE_VERIFY_REQUIRE: warnings are stored only from verified packages")
        }
        // Checked before anything is stored: a call that fails changes nothing.
        if let summary { try checkOutput(summary, "summary") }
        let outcome = try CheckInService(store: s).matchWarningPackage(bytes, trust: o.trust, verify: true, limits: o.limits, now: now)
        if summary != nil {
            var m = encore_warning_match_summary()
            m.signature_status = signatureStatusCode(outcome.signature)
            m.interval_number = outcome.scan.intervalNumber
            m.warnings = UInt64(outcome.scan.warnings)
            m.reports = UInt64(outcome.scan.reports)
            m.matches = UInt64(outcome.scan.matches.count)
            m.added = UInt64(outcome.added)
            m.skipped = UInt64(outcome.scan.skipped)
            try writeOutput(m, to: summary, "summary")
        }
    }
}

// MARK: - Risk

/// CWA's production presence-tracing parameters (TRL 1, 2 → 0, 3 → 0.6 …
/// 8 → 1.6; per check-in and per day (0, 10) LOW, [10, …) HIGH).
@c public func encore_checkin_risk_config_new_cwa(_ out: UnsafeMutablePointer<encore_checkin_risk_config_ptr?>?) -> encore_status {
    guarded {
        try output(out, "out") {
            guard let c = PresenceTracingRiskConfiguration.cwa else { throw EncoreError(.internalError, "the built-in parameters do not parse") }
            return retainedHandle(CheckInRiskConfigHandle(c))
        }
    }
}

/// Parameters from their JSON form (transmissionRiskValueMapping,
/// normalizedTimePerCheckInToRiskLevelMapping,
/// normalizedTimePerDayToRiskLevelMapping, maxCheckInAgeInDays).
/// ENCORE_ERR_INVALID_ARGUMENT names the bad field.
@c public func encore_checkin_risk_config_new_json(_ json: UnsafePointer<UInt8>?, _ length: Int, _ out: UnsafeMutablePointer<encore_checkin_risk_config_ptr?>?) -> encore_status {
    guarded {
        let bytes = Array(try buffer(json, length, "json"))
        try output(out, "out") { retainedHandle(CheckInRiskConfigHandle(try PresenceTracingRiskConfiguration(json: bytes))) }
    }
}

/// Releases parameters; NULL does nothing.
@c public func encore_checkin_risk_config_free(_ config: encore_checkin_risk_config_ptr?) {
    release(config)
}

/// The presence-tracing risk of the stored warnings at the client's time (`config`
/// NULL: CWA's production parameters); reads the store only. On success
/// *out is an assessment for encore_checkin_assessment_free().
@c public func encore_checkin_assess(_ client: encore_client_ptr?, _ config: encore_checkin_risk_config_ptr?, _ out: UnsafeMutablePointer<encore_checkin_assessment_ptr?>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        let c = try config.map { try borrow($0, as: CheckInRiskConfigHandle.self, "config").value } ?? PresenceTracingRiskConfiguration.cwa
        guard let c else { throw EncoreError(.internalError, "the built-in parameters do not parse") }
        _ = try required(out, "out")
        let a = try CheckInService(store: s).assessment(configuration: c, now: now)
        try output(out, "out") { retainedHandle(CheckInAssessmentHandle(a)) }
    }
}

/// The check-ins' part of an exposure check (the same as
/// encore_checkin_assess() at the check's time).
@c public func encore_check_result_get_checkin_assessment(_ result: encore_check_result_ptr?, _ out: UnsafeMutablePointer<encore_checkin_assessment_ptr?>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: CheckResultHandle.self, "result").value
        try output(out, "out") { retainedHandle(CheckInAssessmentHandle(r.checkIns)) }
    }
}

/// Writes the assessment's total level and counts.
@c public func encore_checkin_assessment_get_summary(_ assessment: encore_checkin_assessment_ptr?, _ summary: UnsafeMutablePointer<encore_checkin_risk_summary>?) -> encore_status {
    guarded {
        let a = try borrow(assessment, as: CheckInAssessmentHandle.self, "assessment").value
        try writeOutput(encore_checkin_risk_summary(struct_size: UInt32(MemoryLayout<encore_checkin_risk_summary>.size), total_risk_level: a.totalRiskLevel.rawValue,
                                                    match_count: UInt64(a.matches.count), day_count: UInt64(a.days.count)), to: summary, "summary")
    }
}

/// Copies matches first ..< first + capacity (newest day first), as every
/// list is copied (see "Lists").
@c public func encore_checkin_assessment_copy_matches(_ assessment: encore_checkin_assessment_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_checkin_match>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let a = try borrow(assessment, as: CheckInAssessmentHandle.self, "assessment").value
        try copyOut(a.matches, first: first, out, element_size, capacity, copied) { m in
            var c = encore_checkin_match()
            c.struct_size = structSize(encore_checkin_match.self)
            c.check_in = m.checkIn
            c.date = m.date
            c.overlap_seconds = m.overlapSeconds
            c.overlap_minutes = m.overlapMinutes
            c.normalized_time = m.normalizedTime
            c.transmission_risk_level = m.transmissionRiskLevel
            copy32(m.locationIdHash, into: &c.location_id_hash)
            return c
        }
    }
}

/// Copies days first ..< first + capacity (newest first), as every list is
/// copied.
@c public func encore_checkin_assessment_copy_days(_ assessment: encore_checkin_assessment_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_checkin_day>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let a = try borrow(assessment, as: CheckInAssessmentHandle.self, "assessment").value
        try copyOut(a.days, first: first, out, element_size, capacity, copied) {
            encore_checkin_day(struct_size: structSize(encore_checkin_day.self), risk_level: $0.riskLevel.rawValue, date: $0.date,
                               normalized_time: $0.normalizedTime)
        }
    }
}

/// The assessment as JSON (the form `encore checkin match --json` prints,
/// without skippedReports), in library memory for encore_bytes_free().
@c public func encore_checkin_assessment_get_json(_ assessment: encore_checkin_assessment_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let a = try borrow(assessment, as: CheckInAssessmentHandle.self, "assessment").value
        try output(out, "out") { try LibraryBytes.make(a.json().rendered) }
    }
}

/// Releases an assessment; NULL does nothing.
@c public func encore_checkin_assessment_free(_ assessment: encore_checkin_assessment_ptr?) {
    release(assessment)
}

// MARK: - Submission

/// The protected reports a submission at the client's time would send for the stored
/// check-ins (`options` as for encore_submit_run(), NULL: no information on
/// symptoms) as JSON: {"reports": [{checkin, locationIdHash,
/// startIntervalNumber, period, start, transmissionRiskLevel, iv,
/// encryptedCheckInRecord, mac}]}, shuffled, in library memory for
/// encore_bytes_free(). encore_submit_run() sends such reports itself.
@c public func encore_checkin_get_reports_json(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_submit_options>?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        let o = try submissionOptions(options)
        _ = try required(out, "out")
        let reports = try CheckInSubmission.reports(s.checkIns(), now: now, symptoms: o.symptoms)
        try output(out, "out") { try LibraryBytes.make(CheckInSubmission.json(reports).rendered) }
    }
}
