import CEncoreProto
import EncoreCheckIns
import EncoreCrypto
import EncoreTestSupport
import EncoreWire

/// CWA's check-in QR codes for the tests of the check-ins and of the
/// client: payloads written as the apps write them, and a real code.
package enum CheckInSamples {
    /// A QRCodePayload with the given location fields (CWA's numbers: 5 and 6
    /// for the times), proto3 as the apps write it (zeros and empty fields left out).
    package static func payload(version: UInt32 = 1, description: String = "Café", address: String = "Main Street 1",
                                start: UInt64 = 0, end: UInt64 = 0, seed: [UInt8]? = [UInt8](repeating: 7, count: 16), vendor: [UInt8]? = nil) -> [UInt8] {
        ProtoSamples.written {
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

    /// A CWALocationData (the payload's vendor data).
    package static func vendor(version: UInt32 = 1, type: UInt32, minutes: UInt32) -> [UInt8] {
        ProtoSamples.written {
            let b = try ProtoBuilder()
            let v = try b.message(cwapt__cwalocation_data__init)
            v.pointee.version = version
            v.pointee.type = type
            v.pointee.defaultcheckinlengthinminutes = minutes
            return ProtoBuilder.pack(v)
        }
    }

    package static func qr(_ payload: [UInt8]) -> String { CheckInQRCode.text(payload: payload) }

    /// The location id of a payload as CWA defines it: SHA-256("CWA-GUID" ‖ payload).
    package static func locationId(_ payload: [UInt8]) -> [UInt8] { Digest.sha256(Array("CWA-GUID".utf8), payload) }

    /// A real CWA QR code (the iOS app's scanner tests): a permanent place.
    package static let realQR = "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURhOIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA"

    /// The interval of the warnings (2023-11-15T10:00Z / 600).
    package static let interval: UInt32 = 2_833_344
}
