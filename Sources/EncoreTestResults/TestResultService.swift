import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
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
        try drive(try Self.registerOperation(store: store, verification: verification, submission: submission, key: key,
                                             dateOfBirth: dateOfBirth, rapid: rapid, now: now), now: now)
    }

    /// One poll of the result (whether due or not; nextPollAt says when).
    public func poll(now: Int64) throws -> TestStatus {
        try drive(try Self.pollOperation(store: store, verification: verification, submission: submission, now: now), now: now)
    }

    /// A testresult answer, filed as the app files it for the kind of test
    /// registered, stored; with whether it brings a new final result. A 400
    /// for a test registered over 21 days ago means redeemed: the server
    /// deletes registrations then (Android; under 21 days it is an error).
    static func record(answer: HTTPResponse, of store: Store, now: Int64) throws -> (result: TestResult, notify: Bool) {
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
            status.outdated = now > tested.saturatingAdding(rapidAntigenOutdatedAfter)
        }
        return status
    }

    /// Background noise: a session of fake requests only (needs no store).
    public static func noise(transport: any HTTPTransport, verification: String, submission: String) throws {
        let operation = try noiseOperation(verification: verification, submission: submission)
        _ = try OperationRunner.run(operation, transport: transport, now: 0)
    }

    /// Uploads the own keys of the last 14 days, enriched by what the user
    /// said about symptoms, authorised by the registration's one TAN.
    public func submit(_ options: SubmissionOptions, now: Int64) throws -> SubmissionOutcome {
        try drive(try Self.submitOperation(store: store, verification: verification, submission: submission, options: options, now: now), now: now)
    }

    /// Deletes the registration, its token and any TAN.
    @discardableResult
    public func forget() throws -> Bool { try store.deleteTestRegistration() }

    /// The blocking form of a flow: its operation through the transport.
    private func drive<Result>(_ operation: RequestScript<Result>, now: Int64) throws -> Result {
        _ = try OperationRunner.run(operation, transport: transport, now: now)
        return try operation.outcome()
    }
}

/// What an answer of a flow tells the flow's end (set when the answer is
/// fed, read when the result is made).
final class Carried<Value>: @unchecked Sendable {
    // @unchecked: one operation, driven from one thread at a time.
    var value: Value
    init(_ value: Value) { self.value = value }
}
