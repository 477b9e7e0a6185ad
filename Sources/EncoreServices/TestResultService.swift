import EncoreCrypto
import EncoreHTTP
import EncoreModel
import EncoreProtocols
import EncoreStorage
import EncoreSupport

/// Where a registered test stands (the one JSON form of `encore test`).
public struct TestStatus: Sendable, Equatable {
    public var registered: Bool
    public var keyType: String?
    public var rapid: Bool
    public var result: TestResult?
    public var resultAt: Int64?
    public var sampleCollectedAt: Int64?
    /// When the next poll is due; nil once the result is final (or with no test).
    public var nextPollAt: Int64?
    /// A new final result the user has not been told of: true once, from
    /// the poll that brought it (that poll records it as told).
    public var notify: Bool
    public var hasTAN: Bool
    public var submittedAt: Int64?
    public var submittedKeys: Int?
    /// "pcr" (a lab test, or a teleTAN), "rapid-antigen" or "rapid-pcr"; nil with no test.
    public var testType: String? = nil
    /// When the test was taken: the sample time the server reported, for a
    /// rapid antigen test until then the consent time its code carries.
    public var testedAt: Int64? = nil
    /// A negative rapid antigen test older than 48 hours: it no longer
    /// says anything (Android's hoursToDeemTestOutdated; strictly after).
    public var outdated = false

    public var json: JSONValue {
        .object([
            ("registered", .bool(registered)),
            ("keyType", .string(keyType)),
            ("testType", .string(testType)),
            ("result", .string(result?.value.name)),
            ("rapid", .bool(rapid)),
            ("resultAt", .int(resultAt)),
            ("sampleCollectedAt", .int(sampleCollectedAt)),
            ("testedAt", .int(testedAt)),
            ("outdated", .bool(outdated)),
            ("nextPollAt", .int(nextPollAt)),
            ("notify", .bool(notify)),
            ("hasTan", .bool(hasTAN)),
            ("submittedAt", .int(submittedAt)),
            ("submittedKeys", .int(submittedKeys)),
        ])
    }
}

/// How a submission went.
public struct SubmissionOutcome: Sendable, Equatable {
    public var keys: Int
    /// Check-ins shared with the keys and marked submitted (also those the
    /// time rules left without a report).
    public var checkIns: Int
    public var submittedAt: Int64
    /// Own keys left out because their rolling start is not a UTC midnight.
    public var unalignedKeys: Int

    public var json: JSONValue {
        .object([("submitted", .bool(true)), ("keys", .int(keys)), ("checkIns", .int(checkIns)), ("submittedAt", .int(submittedAt)),
                 ("unalignedKeys", .int(unalignedKeys))])
    }
}

/// What a positive user chooses to upload besides the keys.
public struct SubmissionOptions: Sendable, Equatable {
    public var symptoms: Symptoms = .noInformation
    public var visitedCountries: [String] = []
    public var consentToFederation = false

    public init(symptoms: Symptoms = .noInformation) { self.symptoms = symptoms }
}

/// CWA's test result access and key submission over a store (the state)
/// and a transport (the wire). Each operation is one of Android's
/// playbooks, so that every session looks alike on the wire — its real
/// requests first, then the fake ones:
///   register: real registrationToken, real testresult (fake for a
///             teleTAN, positive by definition), fake submission;
///   poll:     real testresult, fake tan, fake submission;
///   submit:   tan (real, or fake when a TAN is stored already), real submission;
///   noise:    fake tan, fake tan, fake submission.
/// State changes are stored as each real answer arrives, in one transaction
/// each, so a crash at any step leaves a state the next call resumes from:
/// a TAN is requested at most once per registration, kept until an upload
/// with it succeeds (or the server refuses it, or it expires after 14 days).
public struct TestResultService: Sendable {
    public let store: Store
    public let transport: any HTTPTransport
    /// Base URLs ("https://verification.example"); plain http to this machine only.
    public let verification: String
    public let submission: String?

    public static let tanValiditySeconds: Int64 = 14 * UnixTime.day
    /// The verification server deletes a registration after 21 days: a 400
    /// for an older one means redeemed (Android's isOlderThan21Days).
    public static let registrationLifetime: Int64 = 21 * UnixTime.day
    /// A test still pending 60 days after registration is shown as
    /// redeemed (Android's check60Days): the server deleted it long ago.
    public static let pendingLimit: Int64 = 60 * UnixTime.day
    /// A negative rapid antigen test is outdated this long after it was
    /// taken (CoronaTestParameters hoursToDeemTestOutdated, 48 h in production and in Android's defaults).
    public static let rapidAntigenOutdatedAfter: Int64 = 48 * 3600

    public init(store: Store, transport: any HTTPTransport, verification: String, submission: String? = nil) throws {
        try URLPolicy.check(verification)
        if let submission { try URLPolicy.check(submission) }
        self.store = store
        self.transport = transport
        self.verification = verification
        self.submission = submission
    }

    /// Registers a test: its key is checked before any request. A rapid
    /// test's code says which test it is (`rapid`, for a GUID, marks a
    /// rapid antigen test); a rapid PCR test is filed as a PCR test, as the
    /// apps do. A test the server reports redeemed at once is discarded
    /// (.testRedeemed), as Android does.
    public func register(_ key: TestKey, dateOfBirth: String? = nil, rapid: Bool = false, now: Int64) throws -> TestStatus {
        try UnixTime.checkNow(now, "test registration")
        let dobKey = try dateOfBirth.map { try key.dateOfBirthKey($0) }
        let kind: String
        switch key.rapidKind {
        case .rapidAntigen?: kind = RapidTestCode.Kind.rapidAntigen.rawValue
        case .rapidPCR?:
            guard !rapid else { throw EncoreError(.invalidArgument, "a rapid PCR test's code is a PCR test's: it is not registered as a rapid antigen test") }
            kind = RapidTestCode.Kind.rapidPCR.rawValue
        case nil: kind = rapid ? RapidTestCode.Kind.rapidAntigen.rawValue : "pcr"
        }
        if let existing = try store.testRegistration() {
            throw EncoreError(.alreadyRegistered, "a \(existing.keyType) test registered at \(UTCTime.iso8601(seconds: existing.registeredAt) ?? "?") is stored: forget it before registering another")
        }
        let token = try VerificationProtocol.registrationToken(
            from: real(VerificationProtocol.registrationToken(base: verification, key: key, dateOfBirthKey: dobKey)))
        var registration = TestRegistration(keyType: key.keyType, rapid: kind == RapidTestCode.Kind.rapidAntigen.rawValue,
                                            registrationToken: token, registeredAt: now)
        registration.testKind = kind
        if case .rapid(let code) = key { registration.codeTimestamp = code.timestamp }
        if case .teleTAN = key {
            // A teleTAN session is positive by definition, and the user knows.
            let positive = TestResult(value: .positive, rapid: rapid).code
            registration.result = positive
            registration.notifiedResult = positive
        }
        try store.insertTestRegistration(registration)
        var notify = false
        if case .teleTAN = key {
            fakes([{ try VerificationProtocol.testResult(base: verification, registrationToken: nil) }])
        } else {
            let first = try pollNow(now: now)
            if first.result.value == .redeemed {
                fakes(fakeSubmission)
                try store.deleteTestRegistration()
                throw EncoreError(.testRedeemed, "the server reports this test redeemed already: it was not kept (register a new test)")
            }
            notify = first.notify
        }
        fakes(fakeSubmission)
        var status = try self.status(now: now)
        status.notify = notify
        return status
    }

    /// One poll of the result (whether due or not; nextPollAt says when).
    public func poll(now: Int64) throws -> TestStatus {
        let operation = try Self.pollOperation(store: store, verification: verification, submission: submission, now: now)
        _ = try OperationRunner.run(operation, transport: transport, now: now)
        return try operation.outcome()
    }

    /// The poll as an operation the host drives: the real testresult
    /// request (its answer stored when fed), then the session's fakes (a
    /// TAN request, an upload when the submission server is known).
    public static func pollOperation(store: Store, verification: String, submission: String?, now: Int64) throws -> RequestScript<TestStatus> {
        try UnixTime.checkNow(now, "test result poll")
        try URLPolicy.check(verification)
        if let submission { try URLPolicy.check(submission) }
        guard let r = try store.testRegistration() else { throw EncoreError(.notRegistered, "no test is registered") }
        guard r.keyType == "GUID" else {
            throw EncoreError(.invalidArgument, "a teleTAN test is positive by definition: there is no result to poll")
        }
        let notified = NotifyFlag()
        var steps: [ScriptedRequest] = [
            .real({ try VerificationProtocol.testResult(base: verification, registrationToken: r.registrationToken) }) { answer, now in
                notified.value = try record(answer: answer, of: store, now: now).notify
            },
            .fake { try VerificationProtocol.tan(base: verification, registrationToken: nil) },
        ]
        if let submission { steps.append(.fake { try SubmissionProtocol.fakeSubmission(base: submission) }) }
        return RequestScript("test result poll", steps, render: \.json) { now in
            var status = try Self.status(of: store, now: now)
            status.notify = notified.value
            return status
        }
    }

    /// A testresult answer, filed as the app files it for the kind of test
    /// registered, stored; with whether it brings a new final result. A 400
    /// for a test registered over 21 days ago means redeemed: the server
    /// deletes registrations then (Android; under 21 days it is an error).
    private static func record(answer: HTTPResponse, of store: Store, now: Int64) throws -> (result: TestResult, notify: Bool) {
        guard let r = try store.testRegistration() else { throw EncoreError(.notRegistered, "no test is registered") }
        let result: TestResult, sample: Int64?
        if answer.status == 400, now - r.registeredAt > registrationLifetime {
            (result, sample) = (TestResult(value: .redeemed, rapid: r.rapid), nil)
        } else {
            (result, sample) = try VerificationProtocol.testResult(from: answer, rapidAntigen: r.rapid)
        }
        var notify = false
        try store.updateTestRegistration {
            $0.result = result.code
            $0.resultAt = now
            $0.sampleCollectedAt = sample ?? $0.sampleCollectedAt
            if result.isFinal && $0.notifiedResult != result.code {
                $0.notifiedResult = result.code
                notify = true
            }
        }
        return (result, notify)
    }

    /// Where the test stands, from the store alone.
    public func status(now: Int64) throws -> TestStatus { try Self.status(of: store, now: now) }

    public static func status(of store: Store, now: Int64) throws -> TestStatus {
        try UnixTime.checkNow(now, "test status")
        guard let r = try store.testRegistration() else {
            return TestStatus(registered: false, keyType: nil, rapid: false, result: nil, resultAt: nil, sampleCollectedAt: nil,
                              nextPollAt: nil, notify: false, hasTAN: false, submittedAt: nil, submittedKeys: nil)
        }
        var result = r.result.flatMap { TestResult(code: Int64($0)) }
        // Still pending 60 days after registration: the server has long
        // forgotten it (Android shows it as redeemed and stops polling).
        if result?.value ?? .pending == .pending, r.keyType == "GUID", now - r.registeredAt > pendingLimit {
            result = TestResult(value: .redeemed, rapid: r.rapid)
        }
        let next = r.keyType == "TELETAN" ? nil
            : PollingSchedule.nextPoll(rapid: r.rapid, registeredAt: r.registeredAt, lastPoll: r.resultAt, result: result)
        var status = TestStatus(registered: true, keyType: r.keyType, rapid: r.rapid, result: result, resultAt: r.resultAt,
                                sampleCollectedAt: r.sampleCollectedAt, nextPollAt: next, notify: false, hasTAN: r.tan != nil,
                                submittedAt: r.submittedAt, submittedKeys: r.submittedKeys)
        status.testType = r.testKind ?? (r.rapid ? RapidTestCode.Kind.rapidAntigen.rawValue : "pcr")
        status.testedAt = r.sampleCollectedAt ?? (r.rapid ? r.codeTimestamp : nil)
        if r.rapid, result?.value == .negative, let tested = status.testedAt {
            status.outdated = now > tested.addingReportingOverflow(rapidAntigenOutdatedAfter).partialValue
        }
        return status
    }

    /// Background noise: a session of fake requests only (needs no store).
    public static func noise(transport: any HTTPTransport, verification: String, submission: String) throws {
        try URLPolicy.check(verification)
        try URLPolicy.check(submission)
        fakes(transport, [{ try VerificationProtocol.tan(base: verification, registrationToken: nil) },
                          { try VerificationProtocol.tan(base: verification, registrationToken: nil) },
                          { try SubmissionProtocol.fakeSubmission(base: submission) }])
    }

    /// Uploads the own keys of the last 14 days, enriched by what the user
    /// said about symptoms, authorised by the registration's one TAN.
    public func submit(_ options: SubmissionOptions, now: Int64) throws -> SubmissionOutcome {
        try UnixTime.checkNow(now, "submission")
        let submissionBase = try requireSubmission()
        guard let r = try store.testRegistration() else { throw EncoreError(.notRegistered, "no test is registered: nothing authorises a submission") }
        guard r.submittedAt == nil else {
            throw EncoreError(.alreadySubmitted, "the keys of this test were submitted at \(UTCTime.iso8601(seconds: r.submittedAt ?? 0) ?? "?")")
        }
        guard let result = r.result.flatMap({ TestResult(code: Int64($0)) }), result.value == .positive else {
            throw EncoreError(.notPositive, "the test is not positive (\(r.result.flatMap { TestResult(code: Int64($0))?.value.name } ?? "no result yet")): nothing to submit")
        }
        // The keys and payload first: a failure here costs no TAN.
        let own = try OwnKeySchedule(store: store).keyHistory(now: now, days: KeyEnrichment.maxKeys)
        let (keys, unaligned) = KeyEnrichment.enrich(own, now: now, symptoms: options.symptoms)
        guard !keys.isEmpty else { throw EncoreError(.notFound, "no own keys of the last 14 days to submit") }
        // The check-ins too (field 8), each derived, split and encrypted.
        let shared = CheckInSubmission.shared(try store.checkIns(), now: now)
        let checkIns = try CheckInSubmission.reports(shared, now: now, symptoms: options.symptoms)
        let payload = SubmissionPayload(keys: keys, visitedCountries: options.visitedCountries, consentToFederation: options.consentToFederation,
                                        submissionType: r.rapid ? 1 : 0, checkInProtectedReports: checkIns.map(\.protected))
        let tan: String
        if let stored = r.tan, let at = r.tanAt {
            guard now - at < Self.tanValiditySeconds else {
                try store.updateTestRegistration { $0.tan = nil }
                throw EncoreError(.tanRefused, "the TAN received at \(UTCTime.iso8601(seconds: at) ?? "?") has expired (valid 14 days), and a test gets one TAN only")
            }
            fakes([{ try VerificationProtocol.tan(base: self.verification, registrationToken: nil) }])
            tan = stored
        } else {
            tan = try VerificationProtocol.tan(from: real(VerificationProtocol.tan(base: verification, registrationToken: r.registrationToken)))
            // Kept before it is used: a crash from here on resumes with it.
            try store.updateTestRegistration {
                $0.tan = tan
                $0.tanAt = now
            }
        }
        do {
            try SubmissionProtocol.check(real(SubmissionProtocol.submission(base: submissionBase, tan: tan, payload: payload)))
        } catch let e as EncoreError where e.kind == .tanRefused {
            try store.updateTestRegistration { $0.tan = nil }
            throw e
        }
        try store.updateTestRegistration {
            $0.tan = nil
            $0.submittedAt = now
            $0.submittedKeys = keys.count
        }
        // Every shared check-in, reported or dropped by the time rules, is
        // the user's own: warnings for it are then ignored.
        let submittedCheckIns = shared.map(\.id)
        try store.markCheckInsSubmitted(submittedCheckIns)
        return SubmissionOutcome(keys: keys.count, checkIns: submittedCheckIns.count, submittedAt: now, unalignedKeys: unaligned)
    }

    /// Deletes the registration, its token and any TAN.
    @discardableResult
    public func forget() throws -> Bool { try store.deleteTestRegistration() }

    // MARK: - the steps

    /// The real testresult request of a registration and what it brings, stored.
    private func pollNow(now: Int64) throws -> (result: TestResult, notify: Bool) {
        guard let r = try store.testRegistration() else { throw EncoreError(.notRegistered, "no test is registered") }
        let answer = try real(VerificationProtocol.testResult(base: verification, registrationToken: r.registrationToken))
        return try Self.record(answer: answer, of: store, now: now)
    }

    /// The fake upload of a session, when the submission server is known
    /// (without it, registration and polling still work, but their sessions
    /// look shorter than a submission's).
    private var fakeSubmission: [() throws -> HTTPRequest] {
        guard let submission else { return [] }
        return [{ try SubmissionProtocol.fakeSubmission(base: submission) }]
    }

    private func requireSubmission() throws -> String {
        guard let submission else { throw EncoreError(.invalidArgument, "the submission server's URL is needed (its fake requests hide the real ones)") }
        return submission
    }

    private func real(_ request: HTTPRequest) throws -> HTTPResponse {
        try transport.perform(request)
    }

    /// Fake requests: their answers and failures do not matter.
    private func fakes(_ requests: [() throws -> HTTPRequest]) { Self.fakes(transport, requests) }

    private static func fakes(_ transport: any HTTPTransport, _ requests: [() throws -> HTTPRequest]) {
        for make in requests {
            _ = try? transport.perform(try make())
        }
    }
}

/// Set by a poll's answer, read when its result is made.
final class NotifyFlag: @unchecked Sendable {
    // @unchecked: one operation, driven from one thread at a time.
    var value = false
}
