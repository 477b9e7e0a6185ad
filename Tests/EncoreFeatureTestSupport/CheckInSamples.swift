import CEncoreProto
import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreSupport
import EncoreWire

/// Check-in QR codes and CrowdNotifier venues for the tests of the
/// check-ins and of the check-in service.
package enum CheckInSamples {
    /// A QRCodePayload with the given location fields (CWA's numbers: 5 and 6
    /// for the times), proto3 as the apps write it (zeros and empty fields left out).
    package static func payload(version: UInt32 = 1, description: String = "Café", address: String = "Main Street 1",
                                start: UInt64 = 0, end: UInt64 = 0, seed: [UInt8]? = [UInt8](repeating: 7, count: 16), vendor: [UInt8]? = nil) -> [UInt8] {
        ExportWriter.written {
            let b = try ProtoBuilder()
            let location = try b.message(cwapt__trace_location__init)
            location.pointee.version = 1
            location.pointee.description = try b.string(description)
            location.pointee.address = try b.string(address)
            location.pointee.starttimestamp = start
            location.pointee.endtimestamp = end
            let p = try b.message(cwapt__qrcode_payload__init)
            p.pointee.version = version
            p.pointee.locationdata = location
            if let seed {
                let cn = try b.message(cwapt__crowd_notifier_data__init)
                cn.pointee.version = 1
                cn.pointee.publickey = try b.bytes([UInt8](repeating: 4, count: 65))
                cn.pointee.cryptographicseed = try b.bytes(seed)
                p.pointee.crowdnotifierdata = cn
            }
            if let vendor { p.pointee.vendordata = try b.bytes(vendor) }
            return ProtoBuilder.pack(p)
        }
    }

    /// A CrowdNotifier QRCodePayload (version 4) with only a description
    /// and a public key.
    package static func crowdNotifierPayload(description: String, publicKey: [UInt8]) -> [UInt8] {
        ExportWriter.written {
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

    /// A CWALocationData (the payload's vendor data).
    package static func vendor(version: UInt32 = 1, type: UInt32, minutes: UInt32) -> [UInt8] {
        ExportWriter.written {
            let b = try ProtoBuilder()
            let v = try b.message(cwapt__cwalocation_data__init)
            v.pointee.version = version
            v.pointee.type = type
            v.pointee.defaultcheckinlengthinminutes = minutes
            return ProtoBuilder.pack(v)
        }
    }

    package static func qr(_ payload: [UInt8]) -> String { CheckInQRCode.text(payload: payload) }

    /// A real CWA QR code (the iOS app's scanner tests): a permanent place.
    package static let realQR = "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURhOIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA"

    /// The interval of the warnings (2023-11-15T10:00Z / 600).
    package static let interval: UInt32 = 2_833_344

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
