import EncoreSupport
import Testing

/// Base64: white space is tolerated in the standard alphabet (published
/// keys come with line breaks), never in the URL-safe one (QR codes, JWTs).
@Suite struct Base64Tests {
    @Test func urlSafeRefusesWhiteSpaceOfEveryKind() {
        #expect(Base64.decodeURL("AQID-_8") == [1, 2, 3, 0xfb, 0xff])
        for space in [" ", "\n", "\r", "\t"] {
            #expect(Base64.decodeURL("AQID\(space)-_8") == nil, "\(space.unicodeScalars.first?.value ?? 0)")
        }
    }

    @Test func standardToleratesWhiteSpace() {
        #expect(Base64.decode(Array("AQID\n+/8=\r\n".utf8)) == [1, 2, 3, 0xfb, 0xff])
        #expect(Base64.decode(Array("AQ ID\t+/8=".utf8)) == [1, 2, 3, 0xfb, 0xff])
        #expect(Base64.decode(Array("AQID-_8=".utf8)) == nil)
    }
}
