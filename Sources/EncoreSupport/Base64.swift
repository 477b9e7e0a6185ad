/// Base64 (RFC 4648): the standard alphabet (published keys, content
/// hashes) and the URL-safe one (QR codes, JWTs).
public enum Base64 {
    /// Standard base64, tolerant of white space and line breaks as they
    /// appear in published keys; nil on anything else.
    public static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        decode(text, plus: UInt8(ascii: "+"), slash: UInt8(ascii: "/"), whiteSpace: true)
    }

    /// URL-safe base64 ("-" and "_"), with or without "=" padding, no white
    /// space; nil on anything else.
    public static func decodeURL(_ text: String) -> [UInt8]? {
        decode(text.utf8, plus: UInt8(ascii: "-"), slash: UInt8(ascii: "_"), whiteSpace: false)
    }

    public static func encode(_ bytes: [UInt8]) -> String { encode(bytes, url: false) }

    /// URL-safe, without padding.
    public static func encodeURL(_ bytes: [UInt8]) -> String { encode(bytes, url: true) }

    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func encode(_ bytes: [UInt8], url: Bool) -> String {
        let alphabet = url ? urlSafe : standard
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = UInt32(bytes[i]), b1 = n > 1 ? UInt32(bytes[i + 1]) : 0, b2 = n > 2 ? UInt32(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            for k in 0 ..< 4 {
                if k <= n {
                    out.append(alphabet[Int((v >> UInt32(18 - 6 * k)) & 63)])
                } else if !url {
                    out.append(UInt8(ascii: "="))
                }
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func decode<C: Collection>(_ text: C, plus: UInt8, slash: UInt8, whiteSpace: Bool) -> [UInt8]? where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var acc: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case plus: v = 62
            case slash: v = 63
            case UInt8(ascii: "="): padding += 1; continue
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                if whiteSpace { continue }
                return nil
            default: return nil
            }
            if padding > 0 { return nil } // data after padding
            acc = (acc << 6) | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        // Leftover bits must be the zero fill of a final partial group.
        guard padding <= 2, bits < 6, acc & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
