import EncoreCheck
import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport
import EncoreWire
import CCrypto
#if canImport(CZlib)
// EncoreCore's zlib module, visible to dependents; without it the inflate
// baseline is left out.
import CZlib
#endif

/// The cheapest possible work on the same bytes, measured in the same run:
/// the floors that the library's figures are reported against.
enum Baseline {
    /// SHA-256 of the whole export.bin with libcrypto: the verifier must hash
    /// every byte, so no verified open can beat this.
    static func sha256(_ bytes: UnsafeRawBufferPointer) throws -> UInt8 {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_Digest(bytes.baseAddress, bytes.count, &out, &length, EVP_sha256(), nil) == 1 else {
            throw BenchError("EVP_Digest failed")
        }
        return out[0]
    }

    static var hasInflate: Bool {
        #if canImport(CZlib)
        return true
        #else
        return false
        #endif
    }

    /// Plain raw-deflate decompression of the export.bin member into a
    /// buffer of its size (one zlib call, no checks beyond zlib's own).
    static func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        #if canImport(CZlib)
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw BenchError("inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(output.count)
        let rc = CZlib.inflate(&stream, Z_FINISH)
        guard rc == Z_STREAM_END, Int(stream.total_out) == output.count else {
            throw BenchError("inflate failed (\(rc), \(stream.total_out) of \(output.count) bytes)")
        }
        #else
        throw BenchError("zlib is not available to the benchmark")
        #endif
    }

    /// Reads the whole file (from the page cache, after the first run).
    static func read(path: String) throws -> Int {
        try FileReader.read(path: path, maxSize: 1 << 32).count
    }
}

/// The export.bin member of a zip as ExportWriter lays it out (first local
/// header, data right after it): just enough for the inflate baseline.
enum ZipPeek {
    struct Member {
        var method: Int
        var compressed: Range<Int>
        var uncompressedSize: Int
    }

    static func exportBin(_ zip: [UInt8]) throws -> Member {
        func u16(_ at: Int) -> Int { Int(zip[at]) | Int(zip[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard zip.count >= 30, u32(0) == 0x0403_4B50 else { throw BenchError("not a zip with a local header first") }
        let nameLength = u16(26), extraLength = u16(28)
        guard zip.count >= 30 + nameLength, Array(zip[30 ..< 30 + nameLength]) == Array("export.bin".utf8) else {
            throw BenchError("the zip's first member is not export.bin")
        }
        let start = 30 + nameLength + extraLength
        let size = u32(18)
        guard start + size <= zip.count else { throw BenchError("export.bin runs past the end of the zip") }
        return Member(method: u16(8), compressed: start ..< start + size, uncompressedSize: u32(22))
    }
}
