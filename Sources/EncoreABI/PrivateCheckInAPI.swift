// encore.h section: checkin, part 2
// The C functions a private CrowdNotifier check-in needs (issue 41): it kept
// nothing of its venue, so checking out or editing it takes the venue's QR
// code again, as the CrowdNotifier SDKs do. Checking in, and the rest of the
// list, are CheckInAPI.swift's.
import CEncoreTypes
import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreSupport

/// Checks out with the venue's QR code, as the CrowdNotifier SDKs do: a
/// private check-in's hours are made again for its venue, which only the
/// QR code gives (the SDKs ask the app for it too). `qr_code` must be of the
/// check-in's app, and for a diary check-in its very venue
/// (ENCORE_ERR_CHECKIN_QR_MISMATCH; a private check-in kept nothing to
/// compare with: another venue's code of the same app replaces its venue).
/// A failed call changes nothing. Statuses as encore_checkin_end(), and
/// those of a QR code that does not parse.
@c public func encore_checkin_end_with_qr(_ client: encore_client_ptr?, _ id: Int64, _ end: Int64, _ qr_code: UnsafePointer<CChar>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try CheckInService(store: s).checkOut(id: id, end: end, qrCode: try text(qr_code, "qr_code"))
    }
}

/// Sets a check-in's times with its venue's QR code (as for
/// encore_checkin_end_with_qr()): what editing a private check-in needs.
@c public func encore_checkin_edit_with_qr(_ client: encore_client_ptr?, _ id: Int64, _ start: Int64, _ end: Int64, _ qr_code: UnsafePointer<CChar>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let text = try text(qr_code, "qr_code")
        guard end >= -1 else { throw EncoreError(.checkInTimes, "end must be a time or -1 (checked in), not \(end)") }
        try CheckInService(store: s).edit(id: id, start: start, end: end == -1 ? nil : end, qrCode: text)
    }
}
