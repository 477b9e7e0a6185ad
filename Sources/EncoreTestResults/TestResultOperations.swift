import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Test registration, submission and background noise as operations the
/// host drives (the blocking calls of TestResultService run them). What
/// can be checked without the network is checked when the operation is
/// made; each real answer is stored when it is fed. A session has the
/// same requests in the same order whatever the answers say (a refusal
/// ends it, as the apps' sessions end), so the fakes keep their place.
extension TestResultService {
    /// Registration: the registration token (the test stored with it), then
    /// for a test with a result the first poll (its answer stored), for a
    /// teleTAN a fake poll; then the session's fake upload. A test the
    /// server reports redeemed at once is discarded when the session ends
    /// (.testRedeemed), as Android does.
    public static func registerOperation(store: Store, verification: String, submission: String?, key: TestKey,
                                         dateOfBirth: String?, rapid: Bool, now: Int64) throws -> RequestScript<TestStatus> {
        try UnixTime.checkNow(now, "test registration")
        try URLPolicy.check(verification)
        if let submission { try URLPolicy.check(submission) }
        let dobKey = try dateOfBirth.map { try key.dateOfBirthKey($0) }
        let kind = try testKind(key, rapid: rapid)
        if let existing = try store.testRegistration() {
            throw EncoreError(.alreadyRegistered, "a \(existing.keyType) test registered at \(UTCTime.iso8601(seconds: existing.registeredAt) ?? "?") is stored: forget it before registering another")
        }
        let first = Carried<(result: TestResult, notify: Bool)?>(nil)
        var steps: [ScriptedRequest] = [
            .real({ try VerificationProtocol.registrationToken(base: verification, key: key, dateOfBirthKey: dobKey) }) { answer, now in
                let token = try VerificationProtocol.registrationToken(from: answer)
                try store.insertTestRegistration(registration(key, kind: kind, token: token, rapid: rapid, now: now))
            },
        ]
        if case .teleTAN = key {
            steps.append(.fake { try VerificationProtocol.testResult(base: verification, registrationToken: nil) })
        } else {
            steps.append(.real({ try VerificationProtocol.testResult(base: verification, registrationToken: try registrationToken(store)) }) { answer, now in
                first.value = try record(answer: answer, of: store, now: now)
            })
        }
        if let submission { steps.append(.fake { try SubmissionProtocol.fakeSubmission(base: submission) }) }
        return RequestScript("test registration", steps, render: \.json) { now in
            if first.value?.result.value == .redeemed {
                try store.deleteTestRegistration()
                throw EncoreError(.testRedeemed, "the server reports this test redeemed already: it was not kept (register a new test)")
            }
            var status = try Self.status(of: store, now: now)
            status.notify = first.value?.notify ?? false
            return status
        }
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
        let notified = Carried(false)
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

    /// A rapid test's code says which test it is (`rapid`, for a GUID,
    /// marks a rapid antigen test); a rapid PCR test is filed as a PCR
    /// test, as the apps do.
    private static func testKind(_ key: TestKey, rapid: Bool) throws -> String {
        switch key.rapidKind {
        case .rapidAntigen?: return RapidTestCode.Kind.rapidAntigen.rawValue
        case .rapidPCR?:
            guard !rapid else { throw EncoreError(.invalidArgument, "a rapid PCR test's code is a PCR test's: it is not registered as a rapid antigen test") }
            return RapidTestCode.Kind.rapidPCR.rawValue
        case nil: return rapid ? RapidTestCode.Kind.rapidAntigen.rawValue : "pcr"
        }
    }

    private static func registration(_ key: TestKey, kind: String, token: String, rapid: Bool, now: Int64) -> TestRegistration {
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
        return registration
    }

    private static func registrationToken(_ store: Store) throws -> String {
        guard let r = try store.testRegistration() else { throw EncoreError(.notRegistered, "no test is registered") }
        return r.registrationToken
    }

    /// Submission: the TAN (requested once and kept before it is used, so
    /// a crash resumes with it; a fake TAN request when one is kept), then
    /// the upload of the own keys of the last 14 days, enriched by what the
    /// user said about symptoms, with the shared check-ins.
    public static func submitOperation(store: Store, verification: String, submission: String?, options: SubmissionOptions,
                                       now: Int64) throws -> RequestScript<SubmissionOutcome> {
        try UnixTime.checkNow(now, "submission")
        try URLPolicy.check(verification)
        guard let submission else { throw EncoreError(.invalidArgument, "the submission server's URL is needed (its fake requests hide the real ones)") }
        try URLPolicy.check(submission)
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
        var steps: [ScriptedRequest] = []
        if r.tan != nil, let at = r.tanAt {
            guard now - at < tanValiditySeconds else {
                try store.updateTestRegistration { $0.tan = nil }
                throw EncoreError(.tanRefused, "the TAN received at \(UTCTime.iso8601(seconds: at) ?? "?") has expired (valid 14 days), and a test gets one TAN only")
            }
            steps.append(.fake { try VerificationProtocol.tan(base: verification, registrationToken: nil) })
        } else {
            steps.append(.real({ try VerificationProtocol.tan(base: verification, registrationToken: r.registrationToken) }) { answer, now in
                let tan = try VerificationProtocol.tan(from: answer)
                try store.updateTestRegistration {
                    $0.tan = tan
                    $0.tanAt = now
                }
            })
        }
        steps.append(.real({
            guard let tan = try store.testRegistration()?.tan else { throw EncoreError(.tanRefused, "no TAN is kept for this test") }
            return try SubmissionProtocol.submission(base: submission, tan: tan, payload: payload)
        }) { answer, now in
            do {
                try SubmissionProtocol.check(answer)
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
            try store.markCheckInsSubmitted(shared.map(\.id))
        })
        return RequestScript("submission", steps, render: \.json) { _ in
            guard let at = try store.testRegistration()?.submittedAt else { throw EncoreError(.internalError, "the submission was not recorded") }
            return SubmissionOutcome(keys: keys.count, checkIns: shared.count, submittedAt: at, unalignedKeys: unaligned)
        }
    }

    /// Background noise: a session of fake requests only (fake TAN, fake
    /// TAN, fake upload), as real users' sessions look; needs no store.
    public static func noiseOperation(verification: String, submission: String) throws -> RequestScript<Bool> {
        try URLPolicy.check(verification)
        try URLPolicy.check(submission)
        return RequestScript("noise", [.fake { try VerificationProtocol.tan(base: verification, registrationToken: nil) },
                                       .fake { try VerificationProtocol.tan(base: verification, registrationToken: nil) },
                                       .fake { try SubmissionProtocol.fakeSubmission(base: submission) }],
                             render: { _ in .object([("sent", .int(3))]) }) { _ in true }
    }
}
