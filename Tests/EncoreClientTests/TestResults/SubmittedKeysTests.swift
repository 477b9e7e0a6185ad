import EncoreCrypto
import EncoreKeyFiles
import EncoreSupport
import EncoreTestResults
import CEncoreProto
import Testing

/// The keys a positive user submits (TestResults with KeyFiles' keys):
/// which go, enriched, and the payload padded to one size.
@Suite struct SubmittedKeysTests {
    @Test func atMostFourteenAlignedKeysOfTheLastDaysGo() {
        let now: Int64 = 20_000 * 86_400 + 3600
        let keys = (0 ..< 20).map { age in
            ExposureKey(keyData: KeyData([UInt8](repeating: UInt8(age), count: 16))!, rollingStartIntervalNumber: Int32((20_000 - age) * 144))
        } + [ExposureKey(keyData: KeyData([UInt8](repeating: 99, count: 16))!, rollingStartIntervalNumber: 20_000 * 144 + 6)]
        let (out, unaligned) = KeyEnrichment.enrich(keys, now: now, symptoms: .noInformation)
        #expect(out.count == 14 && unaligned == 1)
        let starts: [Int32] = (0 ..< 14).reversed().map { (age: Int) -> Int32 in Int32((20_000 - age) * 144) }
        #expect(out.map(\.rollingStartIntervalNumber) == starts)
        #expect(out.allSatisfy { $0.reportType == .confirmedTest })
    }

    @Test func everySubmissionIsPaddedToTheSameSize() throws {
        let big = (0 ..< 15).map { i in
            ExposureKey(keyData: KeyData([UInt8](repeating: UInt8(i), count: 16))!, transmissionRiskLevel: 8,
                        rollingStartIntervalNumber: Int32.max - 143, rollingPeriod: 144, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 4000)
        }
        var sizes: Set<Int> = []
        for n in 0 ... 15 {
            let p = SubmissionPayload(keys: Array(big.prefix(n)), visitedCountries: ["DE", "FR", "NL", "IT", "ES"], consentToFederation: true)
            let bytes = try p.encoded()
            sizes.insert(bytes.count)
            // protobuf-c reads it back with the keys as given.
            let unpacked = bytes.withUnsafeBufferPointer { cwasubmission__submission_payload__unpack(nil, $0.count, $0.baseAddress) }
            #expect(unpacked?.pointee.n_keys == n && unpacked?.pointee.n_visitedcountries == 5)
            cwasubmission__submission_payload__free_unpacked(unpacked, nil)
        }
        #expect(sizes == [SubmissionPayload.paddedBytes])
        #expect(throws: EncoreError.self) { try SubmissionPayload(keys: [], visitedCountries: ["germany"]).encoded() }
    }
}
