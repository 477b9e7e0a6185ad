import EncoreCrowdNotifier
import EncoreSupport
import Testing

/// The bytes the library writes for CrowdNotifier, byte for byte as the
/// hand-written encoder wrote them before protobuf-c's pack replaced it
/// (hex captured from that encoder). Explicit zeros and empty strings are
/// part of what is pinned: a permanent venue's times, SwissCovid's venue
/// type 0 and criticality LOW, an empty message.
@Suite struct CrowdNotifierBytesTests {
    static func expectHex(_ name: String, _ bytes: [UInt8], _ expected: String) {
        let hex = Hex.encode(bytes)
        #expect(hex == expected, "\(name)")
    }

    /// A fixed master secret's public key and a random source of sevens.
    static let publicKey: [UInt8] = (try? CrowdNotifierAuthority.publicKey(masterSecret: [UInt8](repeating: 3, count: 31) + [0])) ?? []
    static func sevens(_ n: Int) -> [UInt8] { [UInt8](repeating: 7, count: n) }

    @Test func venuePayloads() throws {
        #expect(Self.publicKey.count == 96)
        Self.expectHex("place", try CrowdNotifierAuthority.payload(description: "Café", address: "", publicKey: Self.publicKey, random: Self.sevens), "0804120f08041205436166c3a91a00200028001a880108041260c6e56fb69d6341bb6ad404c49bfa407500c661ff389b4853c3944f437ef77abe73d6be1b34807eac5de525215e2ff1064522b832bb0f5866d405985d6e09f3a52553c8c3eff56514f37f31100c12aca8e48e7435f75abb4ef357802fe26d9e061a2007070707070707070707070707070707070707070707070707070707070707072001220408041000")
        Self.expectHex("event", try CrowdNotifierAuthority.payload(description: "Fest", address: "Platz 1", start: 1_795_629_600, end: 1_795_640_400,
                                                                 publicKey: Self.publicKey, automaticCheckOutSeconds: 5400, random: Self.sevens), "0804121d08041204466573741a07506c61747a203120a0c49cd80628d0989dd8061a880108041260c6e56fb69d6341bb6ad404c49bfa407500c661ff389b4853c3944f437ef77abe73d6be1b34807eac5de525215e2ff1064522b832bb0f5866d405985d6e09f3a52553c8c3eff56514f37f31100c12aca8e48e7435f75abb4ef357802fe26d9e061a200707070707070707070707070707070707070707070707070707070707070707200122090804100028c0cbc902")
        Self.expectHex("notifymeVenue", try CrowdNotifierAuthority.payload(description: "Bar", address: "Gasse 2", start: 0, end: 1_795_640_400,
                                                                    publicKey: Self.publicKey, kind: .notifyMe, random: Self.sevens), "08041218080412034261721a0747617373652032200028d0989dd8061a880108041260c6e56fb69d6341bb6ad404c49bfa407500c661ff389b4853c3944f437ef77abe73d6be1b34807eac5de525215e2ff1064522b832bb0f5866d405985d6e09f3a52553c8c3eff56514f37f31100c12aca8e48e7435f75abb4ef357802fe26d9e061a2007070707070707070707070707070707070707070707070707070707070707072001")
    }

    @Test func traceKeys() throws {
        let swiss = CrowdNotifierTraceKey(identity: [1, 2], secretKey: [3], day: 1_795_564_800, encryptedAssociatedData: [4, 5], nonce: [6])
        let notify = CrowdNotifierTraceKey(layout: .notifyMe, version: 3, identity: [1], secretKey: [2], day: 1_795_564_800,
                                           start: 1_795_629_600, end: 1_795_633_200, encryptedAssociatedData: [7], nonce: [8, 9])
        let zeros = CrowdNotifierTraceKey(version: 0, identity: [], secretKey: [], day: 0, encryptedAssociatedData: [], nonce: [])
        let notifyDay = CrowdNotifierTraceKey(layout: .notifyMe, version: -1, identity: [1], secretKey: [2], day: 86400,
                                              encryptedAssociatedData: [], nonce: [])
        Self.expectHex("swisscovid", try CrowdNotifierTraceKeys.encode([swiss, swiss]), "080312160804120201021a01032080ca98d8062a02040532010612160804120201021a01032080ca98d8062a020405320106")
        Self.expectHex("notifyme", try CrowdNotifierTraceKeys.encode([notify]), "0803121d08031201011a010220809af59ea1342880f7d0a0a1343201073a020809")
        Self.expectHex("mixed", try CrowdNotifierTraceKeys.encode([notify, swiss, zeros, notifyDay]), "0803121d08031201011a010220809af59ea1342880f7d0a0a1343201073a02080912160804120201021a01032080ca98d8062a020405320106120c080012001a0020002a003200121f08ffffffffffffffffff011201011a01022080b899292880b8992932003a00")
        Self.expectHex("none", try CrowdNotifierTraceKeys.encode([]), "0803")
    }

    @Test func associatedData() throws {
        Self.expectHex("data", try CrowdNotifierAssociatedData(message: "Bitte testen", start: 1_795_629_600, end: 1_795_633_200,
                                                         countryData: CrowdNotifierAssociatedData.swissCovidCountryData(criticality: 1)).encoded, "0801120c42697474652074657374656e18a0c49cd80620b0e09cd8062a0408011001")
        Self.expectHex("empty", try CrowdNotifierAssociatedData(version: 0, message: "", start: 0, end: -1).encoded, "08001200180020ffffffffffffffffff01")
        Self.expectHex("low", try CrowdNotifierAssociatedData.swissCovidCountryData(criticality: 0), "08011000")
    }
}
