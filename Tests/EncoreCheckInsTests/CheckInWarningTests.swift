import EncoreCheckIns
import EncoreCheckInsFixtures
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Testing

/// Trace warning packages: matching through the index, and hostile
/// packages that give statuses and counts, never crashes.
@Suite struct CheckInWarningTests {
    static let location = CheckInSamples.locationId(CheckInSamples.payload())
    static let other = CheckInSamples.locationId(CheckInSamples.payload(description: "Elsewhere"))

    static func index() throws -> LocationIndex { try LocationIndex(checkIns: [(id: 7, locationId: location), (id: 8, locationId: location)]) }

    static func scan(_ payload: [UInt8], _ index: LocationIndex? = nil) throws -> WarningScan {
        let i = try index ?? Self.index()
        return try payload.withUnsafeBytes { try TraceWarningScanner.scan(payload: $0, index: i) }
    }

    static func report(_ id: [UInt8] = location, start: UInt32 = CheckInSamples.interval, period: UInt32 = 3, trl: UInt32 = 6) throws -> WarningPackages.Report {
        try WarningPackages.report(locationId: id, startInterval: start, period: period, transmissionRiskLevel: trl)
    }

    @Test func matchesOnlyTheUsersLocations() throws {
        let package = WarningPackages.package(
            intervalNumber: 472_224, warnings: [.init(locationIdHash: WarningPackages.hash(Self.location), startInterval: CheckInSamples.interval, period: 2, transmissionRiskLevel: 4)],
            reports: [try Self.report(), try Self.report(Self.other), try Self.report(trl: 8)])
        let s = try Self.scan(package)
        #expect(s.intervalNumber == 472_224 && s.region == "DE")
        #expect(s.warnings == 1 && s.reports == 3 && s.skipped == 0)
        #expect(s.matches.map(\.item) == [0, 1, 3])
        #expect(s.matches.map(\.transmissionRiskLevel) == [4, 6, 8])
        #expect(s.matches.map(\.encrypted) == [false, true, true])
        // Both check-ins at the location come from one index entry.
        let index = try Self.index()
        #expect(index.entries.count == 1 && index.entries[0].checkIns == [7, 8])
        // The empty package and a package without the user's locations.
        #expect(try Self.scan([]).matches.isEmpty)
        #expect(try Self.scan(WarningPackages.package(reports: [try Self.report(Self.other)])).matches.isEmpty)
    }

    @Test func hostileReportsAreSkippedAndCounted() throws {
        let good = try Self.report()
        var wrongMAC = good
        wrongMAC.mac[0] ^= 1
        var shortIV = good
        shortIV.iv.removeLast()
        var truncated = good
        truncated.encryptedCheckInRecord.removeLast()
        var longHash = good
        longHash.locationIdHash.append(0)
        // Bad padding under a valid MAC: the sender encrypted garbage.
        let keys = CheckInCrypto.Keys(locationId: Self.location)
        let iv = [UInt8](repeating: 3, count: 16)
        var badPadding = good
        badPadding.iv = iv
        badPadding.encryptedCheckInRecord = try Self.rawEncrypt(Array(repeating: 0x41, count: 16) , keys: keys, iv: iv)
        badPadding.mac = try Self.mac(keys, iv: iv, ciphertext: badPadding.encryptedCheckInRecord)
        // A valid record breaking the rules.
        let zeroPeriod = try Self.report(period: 0)
        let trl9 = try Self.report(trl: 9)
        let reports = [good, wrongMAC, shortIV, truncated, longHash, badPadding, zeroPeriod, trl9]
        let s = try Self.scan(WarningPackages.package(reports: reports, rawReports: [[0x0a, 0x50], [0x08]]))
        #expect(s.reports == 10)
        #expect(s.matches.count == 1 && s.matches.first?.item == 0)
        #expect(s.skipped == 9 && s.skippedByMAC == 1)
    }

    static func rawEncrypt(_ plain: [UInt8], keys: CheckInCrypto.Keys, iv: [UInt8]) throws -> [UInt8] {
        // Encrypt 16 bytes + their PKCS#7 block, keep the first block only: it then decrypts with bad padding.
        Array(try CheckInCrypto.encrypt(record: plain, keys: keys, iv: iv).ciphertext.prefix(16))
    }

    static func mac(_ keys: CheckInCrypto.Keys, iv: [UInt8], ciphertext: [UInt8]) throws -> [UInt8] {
        try iv.withUnsafeBytes { i in try ciphertext.withUnsafeBytes { try CheckInCrypto.mac(keys.mac, iv: i, ciphertext: $0) } }
    }

    @Test func malformedPackagesAreRefused() throws {
        for bad: [UInt8] in [[0x22, 0x05, 0x01], [0xff], [0x22], [0x1a, 0x80], [0x20, 0x01]] {
            #expect(kind { _ = try Self.scan(bad) } == .warningMalformed)
        }
    }

    @Test func tenThousandReportsForOneLocation() throws {
        let one = WarningPackages.reportBytes(try Self.report())
        let s = try Self.scan(WarningPackages.package(rawReports: Array(repeating: one, count: 10_000)))
        #expect(s.reports == 10_000 && s.matches.count == 10_000 && s.skipped == 0)
    }

    @Test func aMillionReports() throws {
        // Reports for other locations, one per 10 000 for the user's, some hostile.
        let other = WarningPackages.reportBytes(try Self.report(Self.other))
        let mine = WarningPackages.reportBytes(try Self.report())
        var raw = [[UInt8]](repeating: other, count: 1_000_000)
        for i in stride(from: 0, to: raw.count, by: 10_000) { raw[i] = mine }
        raw[5] = [0x0a, 0x01, 0x00]
        let s = try Self.scan(WarningPackages.package(rawReports: raw))
        #expect(s.reports == 1_000_000 && s.matches.count == 100 && s.skipped == 1)
    }

}
