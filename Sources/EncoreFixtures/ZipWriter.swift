import CZlib
import EncoreExposure
import EncoreKeyFiles
import EncoreSupport

/// Writes small zip archives (stored or deflate members, no zip64), as key
/// servers publish them.
public enum ZipWriter {
    public struct Member {
        public var name: String
        public var data: [UInt8]
        public var compress: Bool
        public init(name: String, data: [UInt8], compress: Bool = true) {
            self.name = name
            self.data = data
            self.compress = compress
        }
    }

    public static func archive(_ members: [Member]) throws -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for m in members {
            let name = Array(m.name.utf8)
            let payload = m.compress ? try deflate(m.data) : m.data
            guard payload.count < 0xFFFF_FFFF, m.data.count < 0xFFFF_FFFF, out.count < 0xFFFF_FFFF else {
                throw EncoreError(.invalidArgument, "zip member \(m.name) is too large for a zip without zip64")
            }
            let crc = crc32(m.data)
            let method: UInt16 = m.compress ? 8 : 0
            let offset = UInt32(out.count)
            // Local header.
            put32(&out, 0x0403_4b50); put16(&out, 20); put16(&out, 0); put16(&out, method)
            put16(&out, 0); put16(&out, 0x21) // 1980-01-01 00:00
            put32(&out, crc); put32(&out, UInt32(payload.count)); put32(&out, UInt32(m.data.count))
            put16(&out, UInt16(name.count)); put16(&out, 0)
            out += name
            out += payload
            // Central directory entry.
            put32(&central, 0x0201_4b50); put16(&central, 20); put16(&central, 20); put16(&central, 0); put16(&central, method)
            put16(&central, 0); put16(&central, 0x21)
            put32(&central, crc); put32(&central, UInt32(payload.count)); put32(&central, UInt32(m.data.count))
            put16(&central, UInt16(name.count)); put16(&central, 0); put16(&central, 0); put16(&central, 0); put16(&central, 0)
            put32(&central, 0); put32(&central, offset)
            central += name
        }
        let directoryOffset = UInt32(out.count)
        out += central
        put32(&out, 0x0605_4b50); put16(&out, 0); put16(&out, 0)
        put16(&out, UInt16(members.count)); put16(&out, UInt16(members.count))
        put32(&out, UInt32(central.count)); put32(&out, directoryOffset); put16(&out, 0)
        return out
    }

    /// Raw deflate (no zlib header), as zip stores it, at zlib's `level`.
    /// `flush` ends it: Z_FINISH a complete stream, Z_FULL_FLUSH a
    /// byte-aligned one without a final block. A `dictionary` is the
    /// window's preset content: the stream may then refer to bytes before
    /// its start, which an inflater without that dictionary must refuse.
    package static func deflate(_ data: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION, flush: Int32 = Z_FINISH,
                                dictionary: [UInt8]? = nil) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw EncoreError(.outOfMemory, "zlib deflateInit failed")
        }
        defer { deflateEnd(&stream) }
        if let dictionary {
            guard dictionary.withUnsafeBufferPointer({ deflateSetDictionary(&stream, $0.baseAddress, uInt($0.count)) }) == Z_OK else {
                throw EncoreError(.internalError, "zlib deflateSetDictionary failed")
            }
        }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        var input = data
        let rc = input.withUnsafeMutableBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                return CZlib.deflate(&stream, flush)
            }
        }
        // Z_FINISH ends the stream; another flush leaves it open, all input taken.
        guard flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK && stream.avail_in == 0 else {
            throw EncoreError(.internalError, "zlib deflate failed (\(rc))")
        }
        return Array(out.prefix(Int(stream.total_out)))
    }

    package static func crc32(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    private static func put16(_ b: inout [UInt8], _ v: UInt16) {
        b.append(UInt8(truncatingIfNeeded: v)); b.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private static func put32(_ b: inout [UInt8], _ v: UInt32) {
        for i in 0 ..< 4 { b.append(UInt8(truncatingIfNeeded: v >> UInt32(8 * i))) }
    }
}
