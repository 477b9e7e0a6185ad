import EncoreHTTP
import EncoreSupport
import EncoreTestResults
import EncoreTestSupport
import CEncoreProto
import Testing

/// The test result and submission protocol core, without I/O: keys, request
/// bodies and heads, answers, key enrichment by the spec's vectors, padding,
/// the polling schedule.
@Suite struct TestResultProtocolTests {
    static let guid = "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"

    @Test func keysAreCheckedAndHashedAsTheServerExpects() throws {
        let key = try TestKey.qrCode("https://localhost/?" + Self.guid)
        #expect(key == .guid(Self.guid))
        #expect(key.serverKey.count == 64 && key.serverKey == key.serverKey.lowercased())
        for bad in ["https://localhost/?", "https://localhost/?" + Self.guid + "0", "http://localhost/?" + Self.guid, "https://localhost/?ZZ6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"] {
            #expect(throws: EncoreError.self) { try TestKey.qrCode(bad) }
        }
        // A teleTAN's check character, and a wrong one.
        let body = "R3ZNUA7K8"
        let tan = body + String(TestKey.teleTANCheckCharacter(body))
        #expect(try TestKey.checkedTeleTAN(tan) == tan)
        let other = TestKey.teleTANAlphabet.first { $0 != tan.last } ?? "2"
        #expect(throws: EncoreError.self) { try TestKey.checkedTeleTAN(body + String(other)) }
        #expect(throws: EncoreError.self) { try TestKey.checkedTeleTAN("R3ZNUA7K8I") }   // I is not in the alphabet
        // The date-of-birth key: "x" and 63 hex digits; 1 January 1900 and 2100 are fine, a 30 February not.
        let dob = try key.dateOfBirthKey("1990-03-15")
        #expect(dob.count == 64 && dob.first == "x")
        _ = try key.dateOfBirthKey("1900-01-01")
        #expect(throws: EncoreError.self) { try key.dateOfBirthKey("1990-02-30") }
        #expect(throws: EncoreError.self) { try TestKey.teleTAN(tan).dateOfBirthKey("1990-03-15") }
    }

    @Test func verificationRequestsAreAllTheSameSize() throws {
        let base = "https://verification.example/prefix"
        let requests = [
            try VerificationProtocol.registrationToken(base: base, key: .guid(Self.guid), dateOfBirthKey: nil),
            try VerificationProtocol.registrationToken(base: base, key: .guid(Self.guid), dateOfBirthKey: try TestKey.guid(Self.guid).dateOfBirthKey("1990-03-15")),
            try VerificationProtocol.testResult(base: base, registrationToken: "2f1d2c44-39a6-4b51-9d0c-9a0b1d8e0c55"),
            try VerificationProtocol.testResult(base: base, registrationToken: nil),
            try VerificationProtocol.tan(base: base, registrationToken: nil),
        ]
        #expect(Set(requests.map(\.body.count)) == [250])
        // Request line + headers: the same length for every endpoint.
        let heads = requests.map { r in r.path.count + r.headers.reduce(0) { $0 + $1.name.count + $1.value.count } }
        #expect(Set(heads).count == 1)
        #expect(requests[3].headers.contains(HTTPHeader("cwa-fake", "1")) && requests[2].headers.contains(HTTPHeader("cwa-fake", "0")))
        #expect(requests[0].url == base + "/version/v1/registrationToken")
    }

    @Test func answersAreReadStrictly() throws {
        func answer(_ status: Int, _ body: String) -> HTTPResponse { HTTPResponse(status: status, body: Array(body.utf8)) }
        #expect(try VerificationProtocol.testResult(from: answer(200, #"{"testResult": 7, "sc": 5}"#), rapidAntigen: true).result == TestResult(value: .positive, rapid: true))
        for body in [#"{"testResult": 10}"#, #"{"testResult": -1}"#, #"{"testResult": "2"}"#, "{", #"{"sc": 1}"#, #"{"testResult": 2, "sc": -5}"#] {
            #expect(throws: EncoreError.self) { try VerificationProtocol.testResult(from: answer(200, body)) }
        }
        #expect((try? VerificationProtocol.tan(from: answer(201, #"{"tan": "x"}"#))) == nil)
        let kinds: [(Int, EncoreError.Kind)] = [(400, .serverRefused), (403, .serverRefused), (429, .serverUnavailable), (502, .serverUnavailable), (307, .protocolError)]
        for (status, kind) in kinds {
            #expect(throws: EncoreError.self) { try VerificationProtocol.tan(from: answer(status, "")) }
            #expect(ServerAnswer.error(answer(status, ""), "x").kind == kind)
        }
        #expect(throws: EncoreError(.tanRefused, "submission: the submission server answered 403: the TAN was refused (unknown, used or expired)")) {
            try SubmissionProtocol.check(answer(403, ""))
        }
    }

    /// The spec's vectors by key age, and the exact-onset table's rows as
    /// CWA's app has them (onset 0 to 12 days ago).
    @Test func keysAreEnrichedByAgeAndSymptoms() {
        let today: Int64 = 20_000
        func row(_ s: Symptoms) -> ([Int32], [Int32]) {
            let v = (0 ... 14).map { KeyEnrichment.values(keyDay: today - Int64($0), today: today, symptoms: s) }
            return (v.map(\.trl), v.map(\.dsos))
        }
        let vectors: [(Symptoms, [Int32], Int32)] = [
            (.noInformation, [5, 6, 7, 7, 7, 6, 4, 3, 2, 1, 1, 1, 1, 1, 1], 4000),
            (.none, [4, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 3000),
            (.onsetUnknown, [5, 6, 8, 8, 8, 7, 5, 3, 2, 1, 1, 1, 1, 1, 1], 2000),
            (.onsetLastSevenDays, [4, 5, 6, 7, 7, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1], 701),
            (.onsetOneToTwoWeeks, [1, 1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7, 6, 6, 4], 708),
            (.onsetOverTwoWeeks, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5], 715),
        ]
        for (symptoms, trl, start) in vectors {
            let (gotTRL, gotDSOS) = row(symptoms)
            let wantDSOS: [Int32] = (0 ... 14).map { start - Int32($0) }
            #expect(gotTRL == trl, "\(symptoms)")
            #expect(gotDSOS == wantDSOS, "\(symptoms)")
        }
        let table: [[Int32]] = [
            [8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1], [8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1],
            [6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1], [5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1],
            [3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1], [2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1],
            [2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1], [1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1],
            [1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1], [1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2],
            [1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4], [1, 1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6],
        ]
        for (daysAgo, expected) in table.enumerated() {
            let (trl, dsos) = row(.onset(day: (today - Int64(daysAgo)) * 86_400))
            let wantDSOS: [Int32] = (0 ... 14).map { Int32(daysAgo) - Int32($0) }
            #expect(trl == expected, "onset \(daysAgo) days ago")
            #expect(dsos == wantDSOS)
        }
        let allOnes: [Int32] = Array(repeating: 1, count: 15)
        #expect(row(.onset(day: (today - 30) * 86_400)).0 == allOnes)
        // Days at the ends of Int64 saturate (found by the protocols fuzzer): the oldest key, the farthest onset.
        #expect(KeyEnrichment.values(keyDay: .min, today: .max, symptoms: .none) == (1, 3000 - Int32.max))
        #expect(KeyEnrichment.values(keyDay: .max, today: .min, symptoms: .none) == (4, 3000))
        #expect(KeyEnrichment.values(keyDay: .min, today: 0, symptoms: .onset(day: .max)) == (1, .min))
        #expect(KeyEnrichment.values(keyDay: .max, today: 0, symptoms: .onset(day: .min)) == (1, .max))
    }

    // The keys a submission carries (enriched, padded): the client's SubmittedKeysTests.

    @Test func pollingFollowsTheIntervals() {
        let t0: Int64 = 1_000_000
        #expect(PollingSchedule.nextPoll(rapid: false, registeredAt: t0, lastPoll: nil, result: nil) == t0 + 7200)
        #expect(PollingSchedule.nextPoll(rapid: true, registeredAt: t0, lastPoll: t0 + 60 * 60, result: TestResult(value: .pending, rapid: true)) == t0 + 75 * 60)
        #expect(PollingSchedule.nextPoll(rapid: true, registeredAt: t0, lastPoll: t0 + 90 * 60, result: nil) == t0 + 180 * 60)
        #expect(PollingSchedule.nextPoll(rapid: false, registeredAt: t0, lastPoll: t0, result: TestResult(value: .negative, rapid: false)) == nil)
        #expect(PollingSchedule.nextPoll(rapid: false, registeredAt: .max, lastPoll: nil, result: nil) != nil)   // no trap
    }
}
