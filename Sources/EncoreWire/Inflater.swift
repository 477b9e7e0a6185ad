import CZlib
import EncoreSupport

/// Raw deflate decompression through zlib into a buffer of exactly the
/// declared size: a stream that would produce more is rejected, so output
/// can never exceed what the limits allowed.
package enum Inflater {
    package static func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, name: String) throws {
        var stream = z_stream()
        // -15: raw deflate, as zip stores it (no zlib header).
        var rc = inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw EncoreError(.outOfMemory, "zlib inflateInit failed (\(rc))") }
        defer { inflateEnd(&stream) }

        let inputBase = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        let outputBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        var consumed = 0
        var produced = 0
        var scratch: UInt8 = 0
        while true {
            // zlib counts in uInt (32 bits): feed at most 1 GiB per call.
            let inChunk = min(input.count - consumed, 1 << 30)
            let outChunk = min(output.count - produced, 1 << 30)
            stream.next_in = UnsafeMutablePointer(mutating: inputBase.map { $0 + consumed })
            stream.avail_in = uInt(inChunk)
            if outChunk > 0 {
                stream.next_out = outputBase.map { $0 + produced }
                stream.avail_out = uInt(outChunk)
            } else {
                // The declared size is reached: one byte of scratch space
                // tells whether the stream would produce more.
                stream.next_out = withUnsafeMutablePointer(to: &scratch) { $0 }
                stream.avail_out = 1
            }
            rc = CZlib.inflate(&stream, Z_NO_FLUSH)
            let usedIn = inChunk - Int(stream.avail_in)
            let usedOut = (outChunk > 0 ? outChunk : 1) - Int(stream.avail_out)
            consumed += usedIn
            if outChunk == 0 && usedOut > 0 {
                throw EncoreError(.zipCorrupt, "\(name) inflates to more than its declared \(output.count) bytes")
            }
            produced += outChunk > 0 ? usedOut : 0
            switch rc {
            case Z_STREAM_END:
                guard produced == output.count else {
                    throw EncoreError(.zipCorrupt, "\(name) inflates to \(produced) bytes, not the declared \(output.count)")
                }
                guard consumed == input.count else {
                    throw EncoreError(.zipCorrupt, "\(name): \(input.count - consumed) bytes follow the end of its deflate stream")
                }
                return
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress was possible: with output space available
                // this means the input ran out before the stream ended.
                if usedIn == 0 && usedOut == 0 {
                    throw EncoreError(.zipCorrupt, "\(name): deflate data ends before the stream does")
                }
                continue
            case Z_MEM_ERROR:
                throw EncoreError(.outOfMemory, "zlib ran out of memory inflating \(name)")
            default:
                let text = stream.msg.map { String(cString: $0) } ?? "error \(rc)"
                throw EncoreError(.zipCorrupt, "\(name): bad deflate data (\(text))")
            }
        }
    }
}
