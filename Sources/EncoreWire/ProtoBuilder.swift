import CEncoreShim
import CProtobufC
import EncoreSupport

/// The one way the library and its fixtures write protobuf: a message of
/// protobuf-c's generated code, filled in and packed by protobuf-c. The
/// message structs, the strings and bytes they point to and their lists live
/// in one arena (CEncoreShim's, the one unpacking uses), so that nothing
/// Swift owns has to stay pinned while protobuf-c packs, and all of it goes
/// at once with the builder. One builder per message written; not shared
/// between threads.
///
/// Fields are written as protobuf-c writes them: in field-number order,
/// unknown fields last; proto2 optional fields when their `has_` is set or
/// their pointer is not NULL (zero or empty ones included); proto3 fields
/// only when not zero or empty.
package final class ProtoBuilder {
    private let arena: OpaquePointer

    /// `capacity`: the arena's first block; larger messages take more blocks.
    package init(capacity: Int = 1024) throws {
        guard let a = enc_arena_new(max(capacity, 64), Int.max) else { throw Self.outOfMemory }
        arena = a
    }

    deinit { enc_arena_free(arena) }

    private static var outOfMemory: EncoreError { EncoreError(.outOfMemory, "cannot allocate a protobuf message to write") }

    /// `count` uninitialised values of `T` (16-byte aligned).
    private func allocate<T>(_ type: T.Type, count: Int) throws -> UnsafeMutablePointer<T> {
        let (bytes, overflow) = MemoryLayout<T>.stride.multipliedReportingOverflow(by: max(count, 1))
        guard !overflow, MemoryLayout<T>.alignment <= 16, let allocator = enc_arena_allocator(arena),
              let raw = allocator.pointee.alloc?(allocator.pointee.allocator_data, bytes) else { throw Self.outOfMemory }
        return raw.bindMemory(to: T.self, capacity: max(count, 1))
    }

    /// A message made by its generated `…__init` function.
    package func message<T>(_ initialize: (UnsafeMutablePointer<T>?) -> Void) throws -> UnsafeMutablePointer<T> {
        let m = try allocate(T.self, count: 1)
        initialize(m)
        return m
    }

    /// Sets an optional scalar field and its presence flag when `value` is
    /// there; nil leaves the field absent.
    package static func set<T>(_ field: inout T, _ has: inout protobuf_c_boolean, _ value: T?) {
        guard let value else { return }
        field = value
        has = 1
    }

    /// A copy of `b` as a bytes field (empty: no data pointer).
    package func bytes<C: Collection>(_ b: C) throws -> ProtobufCBinaryData where C.Element == UInt8 {
        guard !b.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let p = try allocate(UInt8.self, count: b.count)
        _ = UnsafeMutableBufferPointer(start: p, count: b.count).initialize(from: b)
        return ProtobufCBinaryData(len: b.count, data: p)
    }

    /// A copy of `s` as a string field. protobuf-c's strings end at their
    /// first NUL: a string holding one is refused rather than cut short.
    package func string(_ s: String) throws -> UnsafeMutablePointer<CChar> {
        let utf8 = s.utf8
        guard !utf8.contains(0) else { throw EncoreError(.invalidArgument, "a protobuf string cannot hold a NUL character") }
        let p = try allocate(CChar.self, count: utf8.count + 1)
        let raw = UnsafeMutableRawPointer(p).assumingMemoryBound(to: UInt8.self)
        _ = UnsafeMutableBufferPointer(start: raw, count: utf8.count).initialize(from: utf8)
        raw[utf8.count] = 0
        return p
    }

    /// A repeated message field's array (nil when empty, as protobuf-c's own).
    package func list<T>(_ items: [UnsafeMutablePointer<T>]) throws -> UnsafeMutablePointer<UnsafeMutablePointer<T>?>? {
        guard !items.isEmpty else { return nil }
        let p = try allocate(UnsafeMutablePointer<T>?.self, count: items.count)
        for (i, item) in items.enumerated() { (p + i).initialize(to: item) }
        return p
    }

    /// A field protobuf-c writes as it is, after the message's known fields:
    /// what a fixture or a test needs to write what the message's type
    /// cannot describe (a hostile sub-message, a field repeated or of the
    /// wrong wire type, a field the type does not have).
    package enum UnknownField: Sendable, Equatable {
        case varint(UInt32, UInt64)
        case lengthDelimited(UInt32, [UInt8])
    }

    /// Sets the message's unknown fields, written in this order.
    package func setUnknownFields<T>(of message: UnsafeMutablePointer<T>, _ unknown: [UnknownField]) throws {
        guard !unknown.isEmpty else { return }
        let fields = try allocate(ProtobufCMessageUnknownField.self, count: unknown.count)
        for (i, field) in unknown.enumerated() {
            // protobuf-c keeps an unknown field's bytes as it read them: the
            // value's varint, or a length-delimited payload with its length.
            // Wire types by number (0 varint, 2 length-delimited): the fuzz
            // build sees protobuf-c's header through two module maps, and its
            // enum's case constants then resolve in neither.
            let (number, type, raw): (UInt32, ProtobufCWireType, [UInt8]) = switch field {
            case .varint(let n, let v): (n, ProtobufCWireType(rawValue: 0), Self.varint(v))
            case .lengthDelimited(let n, let payload): (n, ProtobufCWireType(rawValue: 2), Self.varint(UInt64(payload.count)) + payload)
            }
            let data = try bytes(raw)
            (fields + i).initialize(to: ProtobufCMessageUnknownField(tag: number, wire_type: type, len: data.len, data: data.data))
        }
        let base = Self.base(message)
        base.pointee.n_unknown_fields = UInt32(unknown.count)
        base.pointee.unknown_fields = fields
    }

    private static func varint(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = [], v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        return out + [UInt8(v)]
    }

    /// The bytes of a message of protobuf-c's generated code, packed by protobuf-c.
    package static func pack<T>(_ message: UnsafeMutablePointer<T>) -> [UInt8] {
        let m = UnsafePointer(Self.base(message))
        let size = protobuf_c_message_get_packed_size(m)
        guard size > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = protobuf_c_message_pack(m, buffer.baseAddress)
        }
    }

    /// Every generated message starts with its ProtobufCMessage.
    private static func base<T>(_ message: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<ProtobufCMessage> {
        UnsafeMutablePointer<ProtobufCMessage>(OpaquePointer(message))
    }
}
