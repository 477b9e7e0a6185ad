// encore.h section: checkin, part 4
// The protected reports a submission would send, as structs, made from the
// same CheckInSubmission.Report values as their JSON.
import CEncoreTypes
import EncoreCheckIns
import EncoreClient
import EncoreSupport
import EncoreTestResults

public typealias encore_checkin_report_list_ptr = OpaquePointer

typealias CheckInReportListHandle = Held<[CheckInSubmission.Report]>

/// A sealed report in its C form.
func protectedReport(locationIdHash: [UInt8], iv: [UInt8], mac: [UInt8], ciphertext: [UInt8]) -> encore_checkin_report {
    var o = encore_checkin_report()
    o.struct_size = structSize(encore_checkin_report.self)
    copy32(locationIdHash, into: &o.location_id_hash)
    copy32(mac, into: &o.mac)
    withUnsafeMutableBytes(of: &o.iv) { dst in iv.prefix(dst.count).withUnsafeBytes { dst.copyMemory(from: $0) } }
    withUnsafeMutableBytes(of: &o.encrypted_record) { dst in ciphertext.prefix(dst.count).withUnsafeBytes { dst.copyMemory(from: $0) } }
    o.encrypted_record_length = UInt32(min(ciphertext.count, MemoryLayout.size(ofValue: o.encrypted_record)))
    return o
}

/// The protected reports a submission would send now (the client's time)
/// for the stored check-ins (`options` as for encore_submit_run(), NULL: no
/// information on symptoms), shuffled, as a list for
/// encore_checkin_report_list_count() and _copy() (the same reports as
/// encore_checkin_report_list_get_json()). Nothing is sent or stored.
/// Release *out with encore_checkin_report_list_free(). Thread-safe as the
/// client is.
@c public func encore_checkin_report_list_open(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_submit_options>?, _ out: UnsafeMutablePointer<encore_checkin_report_list_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let o = try submissionOptions(options)
        _ = try required(out, "out")
        let reports = try CheckInSubmission.reports(c.store.checkIns(), now: try c.now(), symptoms: o.symptoms)
        try output(out, "out") { retainedHandle(CheckInReportListHandle(reports)) }
    }
}

/// Writes the number of reports in a list to *count.
@c public func encore_checkin_report_list_count(_ list: encore_checkin_report_list_ptr?, _ count: UnsafeMutablePointer<Int>?) -> encore_status {
    heldCount(list, as: CheckInReportListHandle.self, count)
}

/// Copies reports first ..< first + capacity of a list (see "Lists").
/// ENCORE_ERR_INVALID_ARGUMENT for an element_size below
/// sizeof(encore_checkin_report_info) of its first version.
@c public func encore_checkin_report_list_copy(_ list: encore_checkin_report_list_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_checkin_report_info>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let reports = try borrow(list, as: CheckInReportListHandle.self, "list").value
        try copyOut(reports, first: first, out, element_size, capacity, copied) { r in
            let p = r.protected
            return encore_checkin_report_info(struct_size: structSize(encore_checkin_report_info.self), transmission_risk_level: r.transmissionRiskLevel,
                                              checkin: r.checkIn, start: Int64(r.startInterval) * UTCTime.intervalSeconds,
                                              start_interval_number: r.startInterval, period: r.period,
                                              report: protectedReport(locationIdHash: p.locationIdHash, iv: p.iv, mac: p.mac,
                                                                      ciphertext: p.encryptedCheckInRecord))
        }
    }
}

/// The list as JSON ({"reports": [...]}, encore_checkin_get_reports_json()'s
/// form), in library memory for encore_bytes_free().
@c public func encore_checkin_report_list_get_json(_ list: encore_checkin_report_list_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let reports = try borrow(list, as: CheckInReportListHandle.self, "list").value
        try output(out, "out") { try LibraryBytes.make(CheckInSubmission.json(reports).rendered) }
    }
}

/// Releases a list; NULL does nothing.
@c public func encore_checkin_report_list_free(_ list: encore_checkin_report_list_ptr?) {
    release(list)
}
