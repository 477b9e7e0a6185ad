// encore.h section: checkin, part 3
// The C functions of the organizer side: creating a CWA event or place and
// its QR code (issue 25).
import CEncoreTypes
import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreSupport

/// Writes an empty spec to *spec (pass sizeof *spec): no texts, no times,
/// type 0 (set one), default_check_in_length_minutes -1 (the app's
/// default for the type).
@c public func encore_trace_location_spec_init(_ spec: UnsafeMutablePointer<encore_trace_location_spec>?, _ struct_size: Int) -> encore_status {
    initOptions(spec, "spec", struct_size) { o in
        o.default_check_in_length_minutes = -1
    }
}

/// Creates a new CWA event or place as the Corona-Warn-App does on the
/// phone (nothing sent or stored): a fresh random 16-byte seed, CWA's
/// presence-tracing public key, the payload read back by the guests'
/// parser. ENCORE_ERR_LOCATION_INVALID for what the app refuses (a type
/// outside 1-12, a blank, multi-line or over-255-character description or
/// address, an event without a start and a later end, a place with times, a
/// default length above 1425 minutes; the message names the field and the
/// rule). On success *out is a location for encore_trace_location_free():
/// encore_trace_location_get_info() has its location id,
/// encore_trace_location_get_url() its QR code's text.
@c public func encore_trace_location_create(_ spec: UnsafePointer<encore_trace_location_spec>?, _ out: UnsafeMutablePointer<encore_trace_location_ptr?>?) -> encore_status {
    guarded {
        let p = try required(spec, "spec")
        let s = try checkedStruct(p, "encore_trace_location_spec_init")
        guard s.reserved == 0 else { throw EncoreError(.invalidArgument, "spec->reserved must be 0") }
        guard s.default_check_in_length_minutes >= -1 else {
            throw EncoreError(.invalidArgument, "spec->default_check_in_length_minutes is -1 (the default) or 0-1425, not \(s.default_check_in_length_minutes)")
        }
        let description = try text(s.description, "spec->description")
        let address = try text(s.address, "spec->address")
        let minutes = s.default_check_in_length_minutes < 0 ? nil : UInt32(s.default_check_in_length_minutes)
        let location = try TraceLocationCreator.create(TraceLocationSpec(
            description: description, address: address, startTimestamp: s.start_timestamp, endTimestamp: s.end_timestamp,
            locationType: s.location_type, defaultCheckInLengthMinutes: minutes))
        try output(out, "out") { retainedHandle(TraceLocationHandle(location)) }
    }
}

/// The location's QR code text, `https://e.coronawarn.app?v=1#` and the
/// payload's base64url without padding (what the apps show and a guest
/// scans; for a parsed location, its payload as scanned), as a C string in
/// library memory for encore_bytes_free().
@c public func encore_trace_location_get_url(_ location: encore_trace_location_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let h = try borrow(location, as: TraceLocationHandle.self, "location")
        try output(out, "out") { try LibraryBytes.make(CheckInQRCode.text(payload: h.location.payload)) }
    }
}

/// The printable QR code of the location's URL, its modules drawn by
/// libqrencode (error correction M, the quiet zone of 4 modules around):
/// `format` ENCORE_QR_IMAGE_PNG (8-bit grey, `scale` pixels a module,
/// 1-16; 0: 8) or ENCORE_QR_IMAGE_SVG (text; `scale` must be 0), in library
/// memory for encore_bytes_free().
@c public func encore_trace_location_get_qr_image(_ location: encore_trace_location_ptr?, _ format: Int32, _ scale: UInt32, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let h = try borrow(location, as: TraceLocationHandle.self, "location")
        _ = try required(out, "out")
        let image: [UInt8]
        switch format {
        case ENCORE_QR_IMAGE_PNG:
            guard scale <= UInt32(QRCodeMatrix.maximumScale) else {
                throw EncoreError(.invalidArgument, "scale is 1-\(QRCodeMatrix.maximumScale) pixels a module (0: \(QRCodeMatrix.defaultScale)), not \(scale)")
            }
            image = try QRCodeMatrix.encode(CheckInQRCode.text(payload: h.location.payload)).png(scale: scale == 0 ? QRCodeMatrix.defaultScale : Int(scale))
        case ENCORE_QR_IMAGE_SVG:
            guard scale == 0 else { throw EncoreError(.invalidArgument, "an SVG has no scale: pass 0, not \(scale)") }
            image = Array(try QRCodeMatrix.encode(CheckInQRCode.text(payload: h.location.payload)).svg().utf8)
        default:
            throw EncoreError(.invalidArgument, "format is ENCORE_QR_IMAGE_PNG (1) or ENCORE_QR_IMAGE_SVG (2), not \(format)")
        }
        try output(out, "out") { try image.withUnsafeBytes { try LibraryBytes.make(copying: $0) } }
    }
}
