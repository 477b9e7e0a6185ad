// encore.h section: test
import CEncoreTypes
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreWire

extension encore_test_status {
    init(_ s: TestStatus) {
        self.init()
        struct_size = UInt32(MemoryLayout<encore_test_status>.size)
        registered = s.registered ? 1 : 0
        key_type = s.keyType == "TELETAN" ? ENCORE_TEST_KEY_TELETAN : ENCORE_TEST_KEY_GUID
        rapid = s.rapid ? 1 : 0
        result = s.result.map { $0.value.rawValue } ?? ENCORE_TEST_RESULT_NONE
        notify = s.notify ? 1 : 0
        has_tan = s.hasTAN ? 1 : 0
        submitted = s.submittedAt == nil ? 0 : 1
        result_at = s.resultAt ?? -1
        sample_collected_at = s.sampleCollectedAt ?? -1
        next_poll_at = s.nextPollAt ?? -1
        submitted_at = s.submittedAt ?? -1
        submitted_keys = UInt32(clamping: s.submittedKeys ?? 0)
        switch s.testType {
        case nil: test_type = ENCORE_TEST_TYPE_NONE
        case RapidTestCode.Kind.rapidAntigen.rawValue?: test_type = ENCORE_TEST_TYPE_RAPID_ANTIGEN
        case RapidTestCode.Kind.rapidPCR.rawValue?: test_type = ENCORE_TEST_TYPE_RAPID_PCR
        default: test_type = ENCORE_TEST_TYPE_PCR
        }
        outdated = s.outdated ? 1 : 0
        tested_at = s.testedAt ?? -1
    }
}

/// Registers a test with CWA's verification server (a lab test's QR code
/// or GUID, a teleTAN, or a rapid antigen or rapid PCR test's QR code; the
/// key and date of birth are checked before anything is sent:
/// ENCORE_ERR_TEST_KEY, and ENCORE_ERR_TEST_CODE_HASH for a rapid code
/// whose hash does not match), and but for a teleTAN polls its result at
/// once (ENCORE_ERR_TEST_REDEEMED, the test discarded, when the server
/// reports it redeemed). On the wire the session also carries the fake
/// requests every session has.
/// ENCORE_ERR_ALREADY_REGISTERED when a test is stored (encore_test_forget()).
/// `status` (may be NULL) gets where the test stands. The client needs a
/// verification server; without a submission server (for this call and
/// encore_test_poll_run()) the session carries no fake upload and does not
/// look like every other on the wire.
@c public func encore_test_register_run(_ client: encore_client_ptr?, _ key: UnsafePointer<encore_test_key>?, _ status: UnsafeMutablePointer<encore_test_status>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let service = try c.testResults()
        let (testKey, dob, rapid) = try testKeyArgument(key)
        let s = try service.register(testKey, dateOfBirth: dob, rapid: rapid, now: try c.now())
        if status != nil { try writeOutput(encore_test_status(s), to: status, "status") }
    }
}

/// The registration of encore_test_register_run() as an operation the host
/// drives with its own I/O (encore_operation_next(), _feed_answer(), ...):
/// the key, the date of birth and the store are checked now; the test is
/// stored when the registration token's answer is fed, its first result
/// when the poll's is. encore_operation_get_test_status() reads the result.
/// Release *out with encore_operation_free().
@c public func encore_test_register_start(_ client: encore_client_ptr?, _ key: UnsafePointer<encore_test_key>?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        _ = try required(out, "out")
        let (testKey, dob, rapid) = try testKeyArgument(key)
        let op = try TestResultService.registerOperation(store: c.store, verification: c.verification(), submission: c.servers.submission,
                                                         key: testKey, dateOfBirth: dob, rapid: rapid, now: try c.now())
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

/// A test key as C gives it, checked.
func testKeyArgument(_ key: UnsafePointer<encore_test_key>?) throws -> (TestKey, String?, Bool) {
    let k: encore_test_key = try readInput(UnsafeRawPointer(try required(key, "key")), "key")
    guard k.reserved == 0 else { throw EncoreError(.invalidArgument, "key->reserved must be 0") }
    let value = try text(k.value, "key->value")
    guard k.rapid <= 1 else { throw EncoreError(.invalidArgument, "key->rapid must be 0 or 1") }
    let testKey: TestKey
    switch k.kind {
    case ENCORE_TEST_KEY_QR_CODE: testKey = try .qrCode(value)
    case ENCORE_TEST_KEY_GUID: testKey = .guid(try TestKey.checkedGUID(value))
    case ENCORE_TEST_KEY_TELETAN: testKey = .teleTAN(try TestKey.checkedTeleTAN(value))
    default: throw EncoreError(.invalidArgument, "key->kind must be ENCORE_TEST_KEY_QR_CODE, _GUID or _TELETAN, not \(k.kind)")
    }
    return (testKey, try k.date_of_birth.map { try text($0, "key->date_of_birth") }, k.rapid == 1)
}

/// Asks the verification server for the registered test's result (one
/// poll, whether due or not: status->next_poll_at says when one is due) and
/// stores it. status->notify is 1 in the one call that brings a new final
/// result. ENCORE_ERR_NOT_REGISTERED without a test; ENCORE_ERR_DOB_MISMATCH
/// when the server answers 403 (the result under the date of birth differs);
/// ENCORE_ERR_SERVER_REFUSED when it answers 400 (it does not know the
/// registration token) for a test registered up to 21 days ago, while for an
/// older one the 400 means redeemed (the server deleted it).
@c public func encore_test_poll_run(_ client: encore_client_ptr?, _ status: UnsafeMutablePointer<encore_test_status>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let s = try c.testResults().poll(now: try c.now())
        if status != nil { try writeOutput(encore_test_status(s), to: status, "status") }
    }
}

/// The poll of encore_test_poll_run() as an operation the host drives with its
/// own I/O (encore_operation_next(), _feed_answer(), ...): the testresult
/// request, whose answer is stored when fed, then the session's fake
/// requests. The registration is checked now: ENCORE_ERR_NOT_REGISTERED
/// without a test. encore_operation_get_test_status() reads the result.
/// Release *out with encore_operation_free().
@c public func encore_test_poll_start(_ client: encore_client_ptr?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        _ = try required(out, "out")
        let op = try TestResultService.pollOperation(store: c.store, verification: c.verification(), submission: c.servers.submission,
                                                     now: try c.now())
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

/// Where the test stands after a finished test operation
/// (encore_test_poll_start()): status->notify is 1 when its answer brought
/// a new final result. The operation's own status when it failed;
/// ENCORE_ERR_OPERATION_STATE before it finished.
@c public func encore_operation_get_test_status(_ operation: encore_operation_ptr?, _ status: UnsafeMutablePointer<encore_test_status>?) -> encore_status {
    guarded {
        _ = try required(status, "status")
        try writeOutput(encore_test_status(try finishedOperation(operation, as: TestStatus.self)), to: status, "status")
    }
}

/// Where the registered test stands at the client's time, from the store
/// alone (registered is 0 when there is none).
@c public func encore_test_get_status(_ client: encore_client_ptr?, _ status: UnsafeMutablePointer<encore_test_status>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        try writeOutput(encore_test_status(try TestResultService.status(of: s, now: now)), to: status, "status")
    }
}

/// Background noise: a session of fake requests only (fake TAN, fake TAN,
/// fake submission), as real users' sessions look. The client needs both
/// the verification and the submission server.
@c public func encore_test_noise_run(_ client: encore_client_ptr?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        try TestResultService.noise(transport: c.transport, verification: c.verification(), submission: c.submission())
    }
}

/// The noise session of encore_test_noise_run() as an operation the host
/// drives with its own I/O (encore_operation_next(), _feed_answer(), ...):
/// three fake requests whose answers are ignored. Release *out with
/// encore_operation_free().
@c public func encore_test_noise_start(_ client: encore_client_ptr?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        _ = try required(out, "out")
        let op = try TestResultService.noiseOperation(verification: c.verification(), submission: c.submission())
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

/// Deletes the registered test, its registration token and any TAN.
/// `existed` (may be NULL) tells whether there was one.
@c public func encore_test_forget(_ client: encore_client_ptr?, _ existed: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let gone = try clientStore(client).deleteTestRegistration()
        existed?.pointee = gone ? 1 : 0
    }
}

/// Writes the default submission options to *options (pass sizeof
/// *options): no information on symptoms, no visited countries, no consent
/// to federation.
@c public func encore_submit_options_init(_ options: UnsafeMutablePointer<encore_submit_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        o.symptoms = ENCORE_SYMPTOMS_NO_INFORMATION
    }
}

func submissionOptions(_ pointer: UnsafePointer<encore_submit_options>?) throws -> SubmissionOptions {
    guard let pointer else { return SubmissionOptions() }
    let o = try checkedStruct(pointer, "encore_submit_options_init")
    guard o.reserved == 0, o.consent_to_federation <= 1 else {
        throw EncoreError(.invalidArgument, "submit options: reserved must be 0 and consent_to_federation 0 or 1")
    }
    var s = SubmissionOptions()
    switch o.symptoms {
    case ENCORE_SYMPTOMS_NO_INFORMATION: s.symptoms = .noInformation
    case ENCORE_SYMPTOMS_NONE: s.symptoms = Symptoms.none
    case ENCORE_SYMPTOMS_ONSET_UNKNOWN: s.symptoms = .onsetUnknown
    case ENCORE_SYMPTOMS_ONSET_LAST_7_DAYS: s.symptoms = .onsetLastSevenDays
    case ENCORE_SYMPTOMS_ONSET_1_2_WEEKS: s.symptoms = .onsetOneToTwoWeeks
    case ENCORE_SYMPTOMS_ONSET_OVER_2_WEEKS: s.symptoms = .onsetOverTwoWeeks
    case ENCORE_SYMPTOMS_ONSET_DATE: s.symptoms = .onset(day: o.onset)
    default: throw EncoreError(.invalidArgument, "submit options: symptoms must be an ENCORE_SYMPTOMS_*, not \(o.symptoms)")
    }
    guard o.visited_country_count <= 64 else { throw EncoreError(.invalidArgument, "submit options: at most 64 visited countries") }
    if o.visited_country_count > 0 { _ = try required(o.visited_countries, "options->visited_countries") }
    for i in 0 ..< o.visited_country_count {
        s.visitedCountries.append(try text(o.visited_countries?[i], "options->visited_countries[\(i)]"))
    }
    s.consentToFederation = o.consent_to_federation == 1
    return s
}

/// Uploads the device's own keys of the last 14 days (at most 14, each
/// enriched by what the user said about symptoms) to CWA's submission
/// server, authorised by the registration's one TAN: requested once and
/// kept until an upload succeeds, so after a failure (or a crash) the next
/// call retries with it. ENCORE_ERR_NOT_POSITIVE without a positive result,
/// ENCORE_ERR_TAN_REFUSED when the server refuses the TAN or it expired,
/// ENCORE_ERR_ALREADY_SUBMITTED after a success. `options` may be NULL;
/// `summary` (may be NULL) tells what went.
@c public func encore_submit_run(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_submit_options>?, _ summary: UnsafeMutablePointer<encore_submit_summary>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let service = try c.testResults()
        let o = try service.submit(try submissionOptions(options), now: try c.now())
        if summary != nil { try writeOutput(encore_submit_summary(o), to: summary, "summary") }
    }
}

/// The submission of encore_submit_run() as an operation the host drives with
/// its own I/O (encore_operation_next(), _feed_answer(), ...): the test,
/// the keys and the payload are checked and made now (a failure costs no
/// TAN); the TAN is kept when its answer is fed, the submission recorded
/// when the upload's is. encore_operation_get_submit_summary() reads the
/// result. Release *out with encore_operation_free().
@c public func encore_submit_start(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_submit_options>?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        _ = try required(out, "out")
        let op = try TestResultService.submitOperation(store: c.store, verification: c.verification(), submission: c.servers.submission,
                                                       options: try submissionOptions(options), now: try c.now())
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

/// What a finished submission operation (encore_submit_start()) uploaded.
/// The operation's own status when it failed; ENCORE_ERR_OPERATION_STATE
/// before it finished.
@c public func encore_operation_get_submit_summary(_ operation: encore_operation_ptr?, _ summary: UnsafeMutablePointer<encore_submit_summary>?) -> encore_status {
    guarded {
        _ = try required(summary, "summary")
        try writeOutput(encore_submit_summary(try finishedOperation(operation, as: SubmissionOutcome.self)), to: summary, "summary")
    }
}

extension encore_submit_summary {
    init(_ o: SubmissionOutcome) {
        self.init(struct_size: UInt32(MemoryLayout<encore_submit_summary>.size), keys: UInt32(clamping: o.keys),
                  check_ins: UInt32(clamping: o.checkIns), unaligned_keys: UInt32(clamping: o.unalignedKeys), submitted_at: o.submittedAt)
    }
}
