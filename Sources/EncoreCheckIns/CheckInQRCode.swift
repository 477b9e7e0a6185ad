import CEncoreProto
import CProtobufC
import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// CWA's event QR codes: `https://e.coronawarn.app?v=1#<base64url of a
/// QRCodePayload>` (a slash before "?" is allowed, as CWA's own pattern
/// allows; padding too). Pure: text in, a TraceLocation or a distinct error
/// out, nothing stored.
public enum CheckInQRCode {
    static let hosts = ["https://e.coronawarn.app?", "https://e.coronawarn.app/?"]

    /// The location a QR code's text describes.
    public static func parse(_ text: String) throws -> TraceLocation {
        guard text.utf8.count <= QRCodeLimits.maxTextBytes else {
            throw EncoreError(.qrTooLarge, "the QR code has \(text.utf8.count) bytes; a QR code holds at most \(QRCodeLimits.maxTextBytes)")
        }
        // Scheme and host are case-insensitive (QR codes in alphanumeric mode
        // are upper case); the base64 payload is not.
        guard let prefix = hosts.first(where: { text.utf8.count >= $0.utf8.count && text.utf8.prefix($0.utf8.count).map(lower).elementsEqual($0.utf8) }) else {
            throw EncoreError(.qrNotCWA, "not a CWA event QR code: it does not start with https://e.coronawarn.app?v=")
        }
        // The prefix is ASCII, so its end is a character boundary.
        let rest = text[text.utf8.index(text.utf8.startIndex, offsetBy: prefix.utf8.count)...]
        guard let hash = rest.firstIndex(of: "#") else {
            throw EncoreError(.qrNotCWA, "not a CWA event QR code: no \"#\" before the payload")
        }
        let query = rest[rest.startIndex ..< hash]
        guard query.lowercased().hasPrefix("v="), let version = UInt32(query.dropFirst(2)) else {
            throw EncoreError(.qrNotCWA, "not a CWA event QR code: the query must be v=<version>, not \"\(query.prefix(16))\"")
        }
        guard version == 1 else { throw EncoreError(.qrVersion, "CWA event QR code version \(version): encore knows version 1") }
        let encoded = String(rest[rest.index(after: hash)...])
        guard !encoded.isEmpty else { throw EncoreError(.qrMalformed, "the QR code has no payload after \"#\"") }
        guard let payload = Base64.decodeURL(encoded) else {
            throw EncoreError(.qrEncoding, "the QR code's payload is not base64url")
        }
        return try location(payload: payload)
    }

    private static func lower(_ c: UInt8) -> UInt8 { (65 ... 90).contains(c) ? c + 32 : c }

    /// The location of a QRCodePayload's bytes.
    public static func location(payload: [UInt8]) throws -> TraceLocation {
        guard payload.count <= QRCodeLimits.maxPayloadBytes else {
            throw EncoreError(.qrTooLarge, "the QR code's payload has \(payload.count) bytes; a QR code holds at most \(QRCodeLimits.maxPayloadBytes)")
        }
        guard let m = payload.withUnsafeBufferPointer({ cwapt__qrcode_payload__unpack(nil, $0.count, $0.baseAddress) }) else {
            throw EncoreError(.qrMalformed, "the QR code's payload is not a QRCodePayload protobuf")
        }
        defer { cwapt__qrcode_payload__free_unpacked(m, nil) }
        let p = m.pointee
        guard p.version == 1 else { throw EncoreError(.qrVersion, "QRCodePayload version \(p.version): encore knows version 1") }
        guard let l = p.locationdata?.pointee else { throw EncoreError(.qrMalformed, "the QR code's payload has no location (field 2)") }
        guard let description = l.description.flatMap({ String(validatingCString: $0) }),
              let address = l.address.flatMap({ String(validatingCString: $0) }) else {
            throw EncoreError(.qrInvalid, "the location's description or address is not UTF-8")
        }
        try CheckInLocationRules.checkText("description", description, kind: .qrInvalid)
        try CheckInLocationRules.checkText("address", address, kind: .qrInvalid)
        try CheckInLocationRules.checkTimes(start: l.starttimestamp, end: l.endtimestamp, kind: .qrInvalid)
        let seed = p.crowdnotifierdata?.pointee.cryptographicseed.len ?? 0
        guard seed == CheckInLocationRules.seedBytes else {
            throw EncoreError(.qrInvalid, "the location's cryptographicSeed has \(seed) bytes; the app requires exactly \(CheckInLocationRules.seedBytes)")
        }
        var type: UInt32 = 0, length: UInt32 = 0
        if p.vendordata.len > 0 {
            guard let v = cwapt__cwalocation_data__unpack(nil, p.vendordata.len, p.vendordata.data) else {
                throw EncoreError(.qrMalformed, "the QR code's vendor data is not a CWALocationData protobuf")
            }
            type = v.pointee.type
            length = v.pointee.defaultcheckinlengthinminutes
            cwapt__cwalocation_data__free_unpacked(v, nil)
        }
        return TraceLocation(payload: payload, version: p.version, description: description, address: address,
                             startTimestamp: l.starttimestamp, endTimestamp: l.endtimestamp, locationType: type,
                             defaultCheckInLengthMinutes: length)
    }

    /// The QR code text of a payload (base64url without padding, as CWA writes it).
    public static func text(payload: [UInt8]) -> String { "https://e.coronawarn.app?v=1#" + Base64.encodeURL(payload) }
}
