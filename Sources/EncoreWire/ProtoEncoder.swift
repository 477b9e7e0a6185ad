import EncoreSupport
/// Protobuf wire encoding: the one writer of the library (the organizer's
/// QR payloads, CrowdNotifier's records and trace keys) and of the test
/// fixtures. Fields are appended in order; a nested message is encoded into
/// its own encoder and added as bytes. The reading side is protobuf-c's
/// generated code and ProtoWire.
package struct ProtoEncoder {
    package private(set) var bytes: [UInt8] = []

    package init(reservingCapacity n: Int = 0) { bytes.reserveCapacity(n) }

    package mutating func varint(_ field: UInt64, _ v: UInt64) {
        tag(field, 0)
        raw(v)
    }

    /// int32 as protobuf encodes it: negative values take ten bytes.
    package mutating func int32(_ field: UInt64, _ v: Int32) { varint(field, UInt64(bitPattern: Int64(v))) }

    package mutating func sint32(_ field: UInt64, _ v: Int32) {
        varint(field, UInt64(UInt32(bitPattern: (v << 1) ^ (v >> 31))))
    }

    package mutating func fixed64(_ field: UInt64, _ v: UInt64) {
        tag(field, 1)
        for i in 0 ..< 8 { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * i))) }
    }

    package mutating func lengthDelimited<C: Collection>(_ field: UInt64, _ payload: C) where C.Element == UInt8 {
        tag(field, 2)
        raw(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    package mutating func string(_ field: UInt64, _ s: String?) {
        if let s { lengthDelimited(field, Array(s.utf8)) }
    }

    private mutating func tag(_ field: UInt64, _ wireType: UInt64) { raw(field << 3 | wireType) }

    private mutating func raw(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}
