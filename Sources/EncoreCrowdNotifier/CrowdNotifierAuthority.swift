import CEncorePairing
import CEncoreProto
import EncoreCrypto
import EncoreSupport
import EncoreWire

/// The authority's side of CrowdNotifier, as the SwissCovid backend does
/// it in its server-based variant (the server keeps each venue's master
/// secret and QR payload): venue keys, the QR code, and for a (venue,
/// interval, message) the trace keys of every hour of the interval. For
/// tests and operators: a full loop runs without an outside system.
public enum CrowdNotifierAuthority {
    /// A venue's master secret key msk (32 bytes little-endian, mcl's Fr
    /// form) and public key g2^msk (96 bytes).
    public struct VenueKeys: Sendable, Equatable {
        public var masterSecret: [UInt8]
        public var publicKey: [UInt8]
    }

    public static func generateKeys(random: (Int) throws -> [UInt8] = SecureRandom.bytes) throws -> VenueKeys {
        let msk = try BLS.randomFr(random)
        return VenueKeys(masterSecret: BLS.bytes(msk), publicKey: BLS.serialize(BLS.g2Generator(times: msk)))
    }

    /// The scalar of a master secret: 32 bytes, non-zero, below r.
    static func secret(_ bytes: [UInt8]) throws -> enc_fr {
        guard bytes.count == BLS.frBytes else { throw EncoreError(.cnSecret, "a venue master secret is 32 bytes, not \(bytes.count)") }
        guard let k = BLS.fr(bytes) else { throw EncoreError(.cnSecret, "the venue master secret is not below the group order r") }
        guard !BLS.isZero(k) else { throw EncoreError(.cnSecret, "the venue master secret is zero") }
        return k
    }

    public static func publicKey(masterSecret: [UInt8]) throws -> [UInt8] {
        BLS.serialize(BLS.g2Generator(times: try secret(masterSecret)))
    }

    /// A QRCodePayload (version 4) for a venue; `start`/`end` 0 for a
    /// permanent place. SwissCovid's country data gets the venue type and
    /// the automatic check-out delay.
    public static func payload(description: String, address: String, start: Int64 = 0, end: Int64 = 0, publicKey: [UInt8],
                               kind: CrowdNotifierVenue.Kind = .swissCovid, automaticCheckOutSeconds: Int64 = 0,
                               random: (Int) throws -> [UInt8] = SecureRandom.bytes) throws -> [UInt8] {
        guard start >= 0, end >= 0 else { throw EncoreError(.invalidArgument, "venue times cannot be negative") }
        guard end == 0 || end >= start else { throw EncoreError(.invalidArgument, "the venue's validity cannot end before it starts") }
        guard !description.isEmpty, description.utf16.count <= CrowdNotifierQRCode.maxTextLength, address.utf16.count <= CrowdNotifierQRCode.maxTextLength else {
            throw EncoreError(.invalidArgument, "a venue needs a name, and name and address have at most \(CrowdNotifierQRCode.maxTextLength) characters")
        }
        guard case .success = BLS.g2Nonzero(publicKey) else { throw EncoreError(.cnPublicKey, "the venue public key is not a usable G2 point") }
        // Every field set, zeros included (a permanent venue's times 0,
        // SwissCovid's venue type 0): the bytes encore has always written.
        let b = try ProtoBuilder()
        let location = try b.message(cnv3__trace_location__init)
        ProtoBuilder.set(&location.pointee.version, &location.pointee.has_version, 4)
        location.pointee.description = try b.string(description)
        location.pointee.address = try b.string(address)
        ProtoBuilder.set(&location.pointee.starttimestamp, &location.pointee.has_starttimestamp, UInt64(start))
        ProtoBuilder.set(&location.pointee.endtimestamp, &location.pointee.has_endtimestamp, UInt64(end))
        let cn = try b.message(cnv3__crowd_notifier_data__init)
        ProtoBuilder.set(&cn.pointee.version, &cn.pointee.has_version, 4)
        ProtoBuilder.set(&cn.pointee.publickey, &cn.pointee.has_publickey, try b.bytes(publicKey))
        ProtoBuilder.set(&cn.pointee.cryptographicseed, &cn.pointee.has_cryptographicseed, try b.bytes(try random(32)))
        ProtoBuilder.set(&cn.pointee.type, &cn.pointee.has_type, 1)
        let p = try b.message(cnv3__qrcode_payload__init)
        ProtoBuilder.set(&p.pointee.version, &p.pointee.has_version, 4)
        p.pointee.locationdata = location
        p.pointee.crowdnotifierdata = cn
        if kind == .swissCovid {
            let country = try b.message(cnv3__swiss_covid_location_data__init)
            ProtoBuilder.set(&country.pointee.version, &country.pointee.has_version, 4)
            ProtoBuilder.set(&country.pointee.type, &country.pointee.has_type, 0)
            if automaticCheckOutSeconds > 0 {
                ProtoBuilder.set(&country.pointee.automaticcheckoutdelaylms, &country.pointee.has_automaticcheckoutdelaylms, Int64(bitPattern: UInt64(automaticCheckOutSeconds) &* 1000))
            }
            ProtoBuilder.set(&p.pointee.countrydata, &p.pointee.has_countrydata, try b.bytes(ProtoBuilder.pack(country)))
        }
        return ProtoBuilder.pack(p)
    }

    /// The trace keys of every hour of [start, end] at the venue of
    /// `payload` (floor(start/3600)·3600 through floor(end/3600)·3600),
    /// each with `message` (and SwissCovid's criticality) as associated
    /// data encrypted under the venue's notification key.
    public static func traceKeys(masterSecret: [UInt8], payload: [UInt8], start: Int64, end: Int64, message: String,
                                 criticality: UInt32? = 1, layout: CrowdNotifierTraceKey.Layout = .swissCovid,
                                 random: (Int) throws -> [UInt8] = SecureRandom.bytes) throws -> [CrowdNotifierTraceKey] {
        let msk = try secret(masterSecret)
        let count = CrowdNotifierCrypto.hourCount(arrival: start, departure: end), limit: Int64 = 24 * 14
        guard count > 0 else { throw EncoreError(.invalidArgument, "the interval must not end before it starts, nor start before 1970") }
        guard count <= limit else { throw EncoreError(.invalidArgument, "the interval spans \(count) hours; at most 14 days are allowed") }
        let hours = CrowdNotifierCrypto.hours(arrival: start, departure: end, limit: limit)
        let nonces = CrowdNotifierCrypto.nonces(payload: payload)
        let preId = CrowdNotifierCrypto.preId(payload: payload, nonces: nonces)
        let data = CrowdNotifierAssociatedData(message: message, start: start, end: end,
                                               countryData: try criticality.map { try CrowdNotifierAssociatedData.swissCovidCountryData(criticality: $0) } ?? [])
        return try hours.enumerated().map { i, hour in
            let id = CrowdNotifierCrypto.identity(preId: preId, intervalStart: hour, timeKey: CrowdNotifierCrypto.timeKey(intervalStart: hour, nonces: nonces))
            let sk = BLS.serialize(BLS.g1(BLS.hashToG1(id), times: msk))
            let nonce = try random(CrowdNotifierCrypto.nonceBytes)
            let ead = try CrowdNotifierCrypto.seal(try data.encoded, nonce: nonce, key: nonces.notificationKey)
            let hourEnd = min(end, hour.saturatingAdding(CrowdNotifierCrypto.intervalSeconds))
            return CrowdNotifierTraceKey(layout: layout, item: i, identity: id, secretKey: sk, day: UnixTime.utcMidnight(hour),
                                         start: layout == .notifyMe ? max(start, hour) : nil, end: layout == .notifyMe ? hourEnd : nil,
                                         encryptedAssociatedData: ead, nonce: nonce)
        }
    }
}
