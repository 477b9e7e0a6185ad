import CZlib
import EncoreSupport

/// A small PNG encoder for what encore draws (printable QR codes): 8-bit
/// greyscale, filter 0 on every row, the image data deflated by zlib and
/// each chunk closed by its CRC-32 (zlib's).
public enum PNGWriter {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `pixels`: `height` rows of `width` grey values (0 black … 255 white), row by row.
    public static func grey(width: Int, height: Int, pixels: [UInt8]) throws -> [UInt8] {
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14, pixels.count == width * height else {
            throw EncoreError(.invalidArgument, "a PNG of \(width)x\(height) needs \(height) rows of \(width) pixels, each side 1-16384")
        }
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width + 1))
        for y in 0 ..< height {
            raw.append(0) // filter type None
            raw.append(contentsOf: pixels[y * width ..< (y + 1) * width])
        }
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 0, 0, 0, 0] // bit depth 8, greyscale, deflate, adaptive filtering, no interlace
        var out = signature
        out += chunk("IHDR", header)
        out += chunk("IDAT", try deflate(raw))
        out += chunk("IEND", [])
        return out
    }

    /// A zlib stream (RFC 1950) of `bytes`, best compression.
    static func deflate(_ bytes: [UInt8]) throws -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { compress2(o.baseAddress, &length, $0.baseAddress, uLong($0.count), Z_BEST_COMPRESSION) }
        }
        guard status == Z_OK else { throw EncoreError(status == Z_MEM_ERROR ? .outOfMemory : .internalError, "zlib could not compress the image (\(status))") }
        return Array(out.prefix(Int(length)))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let body = typeBytes + data
        let crc = body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
