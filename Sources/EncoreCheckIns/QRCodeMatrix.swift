import CQRencode
#if canImport(Glibc)
import Glibc
#endif
import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreWire

/// The modules of a QR code, drawn by libqrencode (Debian's libqrencode),
/// and the printable images made of them: PNG (our own small encoder,
/// EncoreWire's PNGWriter) and SVG (text). Error correction MEDIUM, as CWA's
/// production configuration leaves qrCodeErrorCorrectionLevel unset.
public struct QRCodeMatrix: Sendable, Equatable {
    /// Modules per side (21 for version 1 … 177 for version 40).
    public let size: Int
    /// Row by row, true for a dark module.
    public let modules: [Bool]
    public let version: Int

    /// The quiet zone the QR standard asks around the code, in modules.
    public static let quietZone = 4

    /// The code of `text` (8-bit and alphanumeric segments as libqrencode
    /// chooses, case kept). Text too long for a version 40 code:
    /// ENCORE_ERR_QR_TOO_LARGE.
    public static func encode(_ text: String) throws -> QRCodeMatrix {
        guard !text.utf8.contains(0) else { throw EncoreError(.invalidArgument, "a QR code's text cannot hold a NUL byte") }
        errno = 0
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            if errno == ERANGE {
                throw EncoreError(.qrTooLarge, "the text (\(text.utf8.count) bytes) does not fit a QR code of version 40 with error correction M")
            }
            throw EncoreError(errno == ENOMEM ? .outOfMemory : .internalError, "libqrencode could not encode the text (errno \(errno))")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, width <= 177, let data = code.pointee.data else { throw EncoreError(.internalError, "libqrencode returned no modules") }
        // Bit 0 of each byte: dark.
        let modules = (0 ..< width * width).map { data[$0] & 1 == 1 }
        return QRCodeMatrix(size: width, modules: modules, version: Int(code.pointee.version))
    }

    public init(size: Int, modules: [Bool], version: Int) {
        self.size = size
        self.modules = modules
        self.version = version
    }

    public func isDark(row: Int, column: Int) -> Bool { modules[row * size + column] }

    /// Pixels per module for images when the caller gives none.
    public static let defaultScale = 8
    public static let maximumScale = 16

    /// A PNG of the code, 8-bit grey, `scale` pixels a module, the quiet
    /// zone around it.
    public func png(scale: Int = defaultScale) throws -> [UInt8] {
        guard (1 ... Self.maximumScale).contains(scale) else {
            throw EncoreError(.invalidArgument, "the scale must be 1-\(Self.maximumScale) pixels a module, not \(scale)")
        }
        let side = (size + 2 * Self.quietZone) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for r in 0 ..< size {
            for c in 0 ..< size where isDark(row: r, column: c) {
                let x = (c + Self.quietZone) * scale, y = (r + Self.quietZone) * scale
                for dy in 0 ..< scale { for i in x ..< x + scale { pixels[(y + dy) * side + i] = 0 } }
            }
        }
        return try PNGWriter.grey(width: side, height: side, pixels: pixels)
    }

    /// An SVG of the code: one unit a module, the quiet zone included;
    /// each row's runs of dark modules as rectangles of one path.
    public func svg() -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for r in 0 ..< size {
            var c = 0
            while c < size {
                guard isDark(row: r, column: c) else {
                    c += 1
                    continue
                }
                var end = c
                while end < size && isDark(row: r, column: end) { end += 1 }
                path += "M\(c + Self.quietZone) \(r + Self.quietZone)h\(end - c)v1h-\(end - c)z"
                c = end
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 \(side) \(side)" width="\(side * 8)" height="\(side * 8)" shape-rendering="crispEdges">
            <rect width="\(side)" height="\(side)" fill="#fff"/>
            <path d="\(path)" fill="#000"/>
            </svg>

            """
    }
}
