import EncoreSupport

/// Just enough of the protobuf wire format to walk the fields of the outer
/// TemporaryExposureKeyExport one by one. Sub-messages are decoded by the
/// generated protobuf-c code; walking the container ourselves is what lets a
/// file of millions of keys be read without holding them all decoded.
package struct ProtoWire {
    package enum WireType: UInt8 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5
    }

    package struct Field {
        package var number: UInt64
        package var wireType: WireType
        /// The varint or fixed value, or the offset of a length-delimited payload.
        package var value: UInt64
        package var payload: Range<Int>
    }

    package let bytes: UnsafeRawBufferPointer
    package private(set) var offset: Int

    package init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    package var atEnd: Bool { offset >= bytes.count }

    /// The next field, or nil at the end of the input.
    package mutating func next() throws -> Field? {
        guard !atEnd else { return nil }
        let start = offset
        let tag = try varint()
        let number = tag >> 3
        guard number != 0, let type = WireType(rawValue: UInt8(tag & 7)) else {
            throw malformed("invalid field tag \(tag) at offset \(start)")
        }
        switch type {
        case .varint:
            let v = try varint()
            return Field(number: number, wireType: type, value: v, payload: offset ..< offset)
        case .fixed64:
            let v = try fixed(8)
            return Field(number: number, wireType: type, value: v, payload: offset ..< offset)
        case .fixed32:
            let v = try fixed(4)
            return Field(number: number, wireType: type, value: v, payload: offset ..< offset)
        case .lengthDelimited:
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else {
                throw malformed("field \(number) at offset \(start) claims \(length) bytes, past the end of the data")
            }
            let range = offset ..< offset + Int(length)
            offset = range.upperBound
            return Field(number: number, wireType: type, value: UInt64(range.lowerBound), payload: range)
        }
    }

    private mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw malformed("varint runs past the end of the data") }
            let b = bytes[offset]
            offset += 1
            guard shift < 64 else { throw malformed("varint longer than 10 bytes") }
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    private mutating func fixed(_ n: Int) throws -> UInt64 {
        guard bytes.count - offset >= n else { throw malformed("fixed-width field runs past the end of the data") }
        var v: UInt64 = 0
        for i in 0 ..< n { v |= UInt64(bytes[offset + i]) << UInt64(8 * i) }
        offset += n
        return v
    }

    private func malformed(_ what: String) -> EncoreError {
        EncoreError(.exportMalformed, "export.bin: \(what)")
    }
}
