import CEncoreProto
import CProtobufC
import EncoreSupport

/// A CrowdNotifier venue as its QR code describes it: the location (the
/// same fields as a CWA one, so that one check-in list holds both), the
/// venue's public key (validated: a non-zero point of G2) and which app's
/// code it is.
public struct CrowdNotifierVenue: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case swissCovid = "swisscovid", notifyMe = "notifyme"

        /// The URL a QR code of this kind starts with.
        public var prefix: String {
            switch self {
            case .swissCovid: return "https://qr.swisscovid.ch?v=4#"
            case .notifyMe: return "https://qr.notify-me.ch?v=4#"
            }
        }

        var host: String {
            switch self {
            case .swissCovid: return "https://qr.swisscovid.ch"
            case .notifyMe: return "https://qr.notify-me.ch"
            }
        }
    }

    public var kind: Kind
    /// description, address, times (fields 4 and 5 here), the country
    /// data's venue type and automatic check-out delay; ids of the payload.
    public var location: TraceLocation
    /// The master public key, 96 bytes as in the QR code.
    public var publicKey: [UInt8]
    var cryptographicSeed: [UInt8]
    var crowdNotifierType: UInt32
    var countryData: [UInt8]

    public var payload: [UInt8] { location.payload }

    public var json: JSONValue {
        guard case .object(var members) = location.json else { return location.json }
        members.insert(("kind", .string(kind.rawValue)), at: 0)
        members.append(("publicKey", .string(Hex.encode(publicKey))))
        return .object(members)
    }
}

/// SwissCovid's and NotifyMe's QR codes (`https://qr.swisscovid.ch?v=4#…`,
/// `https://qr.notify-me.ch?v=4#…`, base64url of a CrowdNotifier
/// QRCodePayload). Pure: text in, a venue or a distinct error out.
public enum CrowdNotifierQRCode {
    /// The payload versions of CrowdNotifier v3's codes.
    static let payloadVersions: ClosedRange<UInt32> = 3 ... 4
    /// encore's limit for a venue's description and address, in UTF-16
    /// units (CWA's own codes allow 255: CheckInLocationRules).
    static let maxTextLength = 100

    /// The kind of CrowdNotifier code `text` claims to be (by its scheme
    /// and host, case-insensitive), nil for any other text.
    public static func kind(of text: String) -> CrowdNotifierVenue.Kind? {
        let head = text.utf8.prefix(40).map { (65 ... 90).contains($0) ? $0 + 32 : $0 }
        return CrowdNotifierVenue.Kind.allCases.first { k in
            [k.host + "?", k.host + "/?"].contains { p in head.count >= p.utf8.count && head.prefix(p.utf8.count).elementsEqual(p.utf8) }
        }
    }

    public static func parse(_ text: String) throws -> CrowdNotifierVenue {
        guard text.utf8.count <= QRCodeLimits.maxTextBytes else {
            throw EncoreError(.qrTooLarge, "the QR code has \(text.utf8.count) bytes; a QR code holds at most \(QRCodeLimits.maxTextBytes)")
        }
        guard let kind = kind(of: text) else {
            throw EncoreError(.qrNotCWA, "not a SwissCovid or NotifyMe QR code: it does not start with https://qr.swisscovid.ch?v= or https://qr.notify-me.ch?v=")
        }
        guard let query = text.firstIndex(of: "?"), let hash = text.firstIndex(of: "#"), query < hash else {
            throw EncoreError(.qrNotCWA, "not a CrowdNotifier QR code: no \"#\" before the payload")
        }
        let q = text[text.index(after: query) ..< hash]
        guard q.lowercased().hasPrefix("v="), let version = UInt32(q.dropFirst(2)) else {
            throw EncoreError(.qrNotCWA, "not a CrowdNotifier QR code: the query must be v=<version>, not \"\(q.prefix(16))\"")
        }
        guard version == 4 else { throw EncoreError(.qrVersion, "\(kind.rawValue) QR code version \(version): encore knows version 4 (CrowdNotifier v3)") }
        let encoded = String(text[text.index(after: hash)...])
        guard !encoded.isEmpty else { throw EncoreError(.qrMalformed, "the QR code has no payload after \"#\"") }
        guard let payload = Base64.decodeURL(encoded) else { throw EncoreError(.qrEncoding, "the QR code's payload is not base64url") }
        return try venue(payload: payload, kind: kind)
    }

    /// The venue of a CrowdNotifier QRCodePayload's bytes.
    public static func venue(payload: [UInt8], kind: CrowdNotifierVenue.Kind) throws -> CrowdNotifierVenue {
        guard payload.count <= QRCodeLimits.maxPayloadBytes else {
            throw EncoreError(.qrTooLarge, "the QR code's payload has \(payload.count) bytes; a QR code holds at most \(QRCodeLimits.maxPayloadBytes)")
        }
        guard let m = payload.withUnsafeBufferPointer({ cnv3__qrcode_payload__unpack(nil, $0.count, $0.baseAddress) }) else {
            throw EncoreError(.qrMalformed, "the QR code's payload is not a CrowdNotifier QRCodePayload protobuf")
        }
        defer { cnv3__qrcode_payload__free_unpacked(m, nil) }
        let p = m.pointee
        guard payloadVersions.contains(p.version) else {
            throw EncoreError(.qrVersion, "CrowdNotifier QRCodePayload version \(p.version): encore knows versions 3 and 4")
        }
        guard let l = p.locationdata?.pointee else { throw EncoreError(.qrMalformed, "the QR code's payload has no location (field 2)") }
        guard let cn = p.crowdnotifierdata?.pointee else { throw EncoreError(.qrMalformed, "the QR code's payload has no CrowdNotifier data (field 3)") }
        guard let description = text(l.description), let address = text(l.address) else {
            throw EncoreError(.qrInvalid, "the location's description or address is not UTF-8")
        }
        guard !description.isEmpty else { throw EncoreError(.qrInvalid, "the location has no description") }
        for (name, value) in [("description", description), ("address", address)] where value.utf16.count > maxTextLength {
            throw EncoreError(.qrInvalid, "the location's \(name) has \(value.utf16.count) characters; at most \(maxTextLength) are allowed")
        }
        guard l.starttimestamp <= UInt64(Int64.max), l.endtimestamp <= UInt64(Int64.max) else {
            throw EncoreError(.qrInvalid, "the venue's times are out of range")
        }
        guard l.endtimestamp == 0 || l.endtimestamp >= l.starttimestamp else {
            throw EncoreError(.qrInvalid, "the venue's validity ends (\(l.endtimestamp)) before it starts (\(l.starttimestamp))")
        }
        let key = bytes(cn.publickey)
        if case .failure(let e) = BLS.g2Nonzero(key) {
            throw EncoreError(.cnPublicKey, "the venue's public key (\(key.count) bytes) \(e == .length ? "is not 96 bytes" : e.text)")
        }
        let country = bytes(p.countrydata)
        var type: UInt32 = 0, lengthMinutes: UInt32 = 0
        if kind == .swissCovid, !country.isEmpty,
           let s = country.withUnsafeBufferPointer({ cnv3__swiss_covid_location_data__unpack(nil, $0.count, $0.baseAddress) }) {
            type = s.pointee.type
            // The automatic check-out delay, in whole minutes (at most a day).
            let ms = s.pointee.automaticcheckoutdelaylms
            if ms > 0 { lengthMinutes = UInt32(min(ms / 60_000, 24 * 60)) }
            cnv3__swiss_covid_location_data__free_unpacked(s, nil)
        }
        let location = TraceLocation(payload: payload, version: p.version, description: description, address: address,
                                     startTimestamp: l.starttimestamp, endTimestamp: l.endtimestamp, locationType: type,
                                     defaultCheckInLengthMinutes: lengthMinutes)
        return CrowdNotifierVenue(kind: kind, location: location, publicKey: key, cryptographicSeed: bytes(cn.cryptographicseed),
                                  crowdNotifierType: cn.type, countryData: country)
    }

    /// A string field: "" when absent (NULL: crowdnotifier.proto is proto2),
    /// nil when not UTF-8.
    static func text(_ s: UnsafeMutablePointer<CChar>?) -> String? {
        guard let s else { return "" }
        return String(validatingCString: s)
    }

    static func bytes(_ b: ProtobufCBinaryData) -> [UInt8] {
        guard b.len > 0, let d = b.data else { return [] }
        return Array(UnsafeBufferPointer(start: d, count: b.len))
    }

    /// The QR code text of a payload (base64url without padding).
    public static func text(payload: [UInt8], kind: CrowdNotifierVenue.Kind) -> String { kind.prefix + Base64.encodeURL(payload) }
}
