import CEncoreProto
import EncoreCrowdNotifier
import EncoreTestSupport
import EncoreWire

/// CrowdNotifier venues and their QR codes for the tests of CrowdNotifier
/// and of the client (the check-ins' CrowdNotifier visits).
package enum CrowdNotifierSamples {
    /// A CrowdNotifier QRCodePayload (version 4) with only a description
    /// and a public key.
    package static func crowdNotifierPayload(description: String, publicKey: [UInt8]) -> [UInt8] {
        ProtoSamples.written {
            let b = try ProtoBuilder()
            let location = try b.message(cnv3__trace_location__init)
            location.pointee.description = try b.string(description)
            let cn = try b.message(cnv3__crowd_notifier_data__init)
            ProtoBuilder.set(&cn.pointee.publickey, &cn.pointee.has_publickey, try b.bytes(publicKey))
            let p = try b.message(cnv3__qrcode_payload__init)
            ProtoBuilder.set(&p.pointee.version, &p.pointee.has_version, 4)
            p.pointee.locationdata = location
            p.pointee.crowdnotifierdata = cn
            return ProtoBuilder.pack(p)
        }
    }

    /// 2026-11-25T18:00:00Z, the evening of the CrowdNotifier visits.
    package static let evening: Int64 = 1_795_629_600

    /// A CrowdNotifier venue of a fresh key pair: its QR code and its keys.
    package static func venue(_ kind: CrowdNotifierVenue.Kind = .swissCovid, name: String = "Café Bahnhof") throws -> (qr: String, keys: CrowdNotifierAuthority.VenueKeys) {
        let keys = try CrowdNotifierAuthority.generateKeys()
        let payload = try CrowdNotifierAuthority.payload(description: name, address: "Bahnhofplatz 1, Bern", publicKey: keys.publicKey, kind: kind)
        return (CrowdNotifierQRCode.text(payload: payload, kind: kind), keys)
    }

    /// Secret keys that are not usable points: the identity, off the curve,
    /// on the curve outside G1, not a field element, the wrong length.
    package static func hostileSecretKeys() -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = [("identity", [UInt8](repeating: 0, count: 48)), ("47 bytes", [UInt8](repeating: 1, count: 47)),
                                        ("x >= p", [UInt8](repeating: 0xff, count: 47) + [0x1f])]
        var offCurve: [UInt8]?, outside: [UInt8]?
        var x: UInt8 = 1
        while offCurve == nil || outside == nil {
            let b = [x] + [UInt8](repeating: 0, count: 47)
            switch BLS.g1Nonzero(b) {
            case .failure(.notOnCurve): offCurve = offCurve ?? b
            case .failure(.notInSubgroup): outside = outside ?? b
            default: break
            }
            x += 1
        }
        if let offCurve { out.append(("off the curve", offCurve)) }
        if let outside { out.append(("outside the subgroup", outside)) }
        return out
    }
}
