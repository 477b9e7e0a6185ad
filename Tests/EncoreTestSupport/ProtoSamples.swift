import CEncoreProto
import EncoreWire

/// Protobuf the tests write on purpose, all of it packed by protobuf-c (the
/// one writer): what no message type describes (a hostile payload, a field
/// of the wrong wire type, an unknown field, a field by its number alone)
/// as the unknown fields of an otherwise empty message. A feature's tests
/// add their messages' samples in an extension (the key files' keys).
package enum ProtoSamples {
    /// `fields` as they are, in this order.
    package static func raw(_ fields: ProtoBuilder.UnknownField...) -> [UInt8] { raw(fields) }

    package static func raw(_ fields: [ProtoBuilder.UnknownField]) -> [UInt8] {
        written {
            let b = try ProtoBuilder()
            let m = try b.message(ekexport__teksignature_list__init)
            try b.setUnknownFields(of: m, fields)
            return ProtoBuilder.pack(m)
        }
    }

    /// The bytes `pack` makes. A sample is the test's own values: when
    /// protobuf-c cannot take them or memory runs out, that is the test's
    /// mistake, and it stops there.
    package static func written(_ pack: () throws -> [UInt8]) -> [UInt8] {
        do {
            return try pack()
        } catch {
            preconditionFailure("a test could not write its protobuf: \(error)")
        }
    }
}
