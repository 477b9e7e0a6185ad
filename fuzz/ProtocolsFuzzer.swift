// libFuzzer target for what servers and hosts hand the network protocols
// (FUZZ_TARGET=protocols scripts/fuzz.sh): the first byte chooses what the
// rest is.
//   0  an app configuration (ApplicationConfigurationAndroid payload)
//   1  an answer of the distribution server: day and hour indexes, trace
//      warning index, a package, the Date header
//   2  an answer of a DP-3T (SwissCovid) backend and a Signature JWT
//   3  answers of the verification server: registration token, test
//      result (PCR and rapid), TAN, and the error of any status
//   4  a QR code's text as a test key (CWA PCR, rapid test) and as a
//      GUID or teleTAN typed in
//   5  a push registration as clients send it, push and instance tokens of
//      every type, the push service's and the submission server's answers
//   6  numbers a host or a store gives: the sync planner's state, clock,
//      trigger and network; the polling schedule; the backoff; the push
//      rule; key enrichment's symptom days and the keys it picks
//   7  a public key's material, a JSON text
// An answer is status (2 bytes), a header block (text up to the first NUL,
// its first line taken for the status line) and the body. An EncoreError is an expected outcome; a crash (a trap on
// an overflow among them), a sanitizer report or a fatalError of the
// harness (an invariant broken) is a finding.

/// Reads fixed-size values off the front of the input, zeros once it is used up.
private struct Reader {
    var bytes: ArraySlice<UInt8>
    mutating func u64() -> UInt64 {
        var v: UInt64 = 0
        for _ in 0 ..< 8 { v = v << 8 | UInt64(bytes.popFirst() ?? 0) }
        return v
    }
    mutating func i64() -> Int64 { Int64(bitPattern: u64()) }
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
    mutating func bool() -> Bool { byte() & 1 == 1 }
    mutating func optionalI64() -> Int64? { bool() ? i64() : nil }
}

private func response(_ bytes: [UInt8]) -> HTTPResponse {
    guard bytes.count >= 2 else { return HTTPResponse(status: 200, body: bytes) }
    let status = Int(bytes[0]) << 8 | Int(bytes[1])
    let rest = bytes.dropFirst(2)
    guard let nul = rest.firstIndex(of: 0) else { return HTTPResponse(status: status, body: Array(rest)) }
    let headers = HTTPResponse.headers(fromBlock: String(decoding: rest[..<nul], as: UTF8.self))
    return HTTPResponse(status: status, headers: headers, body: Array(rest[(nul + 1)...]))
}

/// A server's P-256 key as a host configures it (Google's sample key,
/// Tests/data/exports/google-sample), so that fuzzed JWTs reach the
/// signature check.
private let serverKey: PublicKey = harnessFixture("its fixed public key") {
    let pem = """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE49JY6kekDgxj3Crm4y6kEHdfoKQF
    SNDM4mV9cgDb+e5nOAw0GeRoRThCu9/wX5wDT2QloFoOjl2pGZHI0f3C3w==
    -----END PUBLIC KEY-----
    """
    return try PublicKey(material: Array(pem.utf8))
}

/// The Protocols target's input (Main.swift calls it for FUZZ_TARGET=protocols).
func fuzzProtocols(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let rest = Array(input.rest)
    let text = String(decoding: rest, as: UTF8.self)
    switch input.selector & 7 {
    case 0:
        expecting { _ = try AppConfiguration(payload: rest) }
    case 1:
        let r = response(rest)
        expecting { _ = try DistributionProtocol.days(from: r) }
        expecting { _ = try DistributionProtocol.hours(from: r) }
        expecting { _ = try DistributionProtocol.traceWarningHours(from: r) }
        expecting { _ = try DistributionProtocol.package(from: r, "a package") }
        _ = DistributionProtocol.serverDate(r)
    case 2:
        let r = response(rest)
        expecting { _ = try DP3TProtocol.answer(r, key: serverKey) }
        expecting { _ = try JWS.signedContentHash(text, key: serverKey) }
    case 3:
        let r = response(rest)
        expecting { _ = try VerificationProtocol.registrationToken(from: r) }
        expecting { _ = try VerificationProtocol.testResult(from: r) }
        expecting { _ = try VerificationProtocol.testResult(from: r, rapidAntigen: true) }
        expecting { _ = try VerificationProtocol.tan(from: r) }
        _ = ServerAnswer.error(r, "the fuzzer")
    case 4:
        expecting { _ = try TestKey.qrCode(text) }
        expecting { _ = try RapidTestCode.parse(text) }
        _ = RapidTestCode.isRapidTestURL(text)
        expecting { _ = try TestKey.checkedGUID(text) }
        expecting { _ = try TestKey.checkedTeleTAN(text) }
    case 5:
        expecting { _ = try PushRegistration(decoding: rest) }
        for type in PushType.allCases {
            expecting { _ = try PushRegistration.canonicalPushToken(text, type: type) }
            expecting { try PushRegistration.validatePushToken(text, type: type) }
        }
        expecting { try PushRegistration.validateInstanceToken(text) }
        let r = response(rest)
        expecting { try PushProtocol.check(r, deregistration: false) }
        expecting { try PushProtocol.check(r, deregistration: true) }
        expecting { try SubmissionProtocol.check(r) }
    case 6:
        var input = Reader(bytes: rest[...])
        var s = SyncState()
        s.lastSuccess = input.optionalI64()
        s.lastAttempt = input.optionalI64()
        s.failures = Int(truncatingIfNeeded: input.i64())
        s.newestCachedDay = input.bool() ? String(decoding: input.bytes.prefix(10), as: UTF8.self) : nil
        s.lastDaySyncFailed = input.bool()
        s.revocationPending = input.bool()
        s.dp3tSyncs = (0 ..< Int(input.byte() & 7)).map { _ in input.i64() }
        s.jitterSeed = input.u64()
        s.lastTraceKeySync = input.optionalI64()
        s.crowdNotifierVisits = input.bool()
        s.isolated = input.bool()
        s.configFailures = Int(truncatingIfNeeded: input.i64())
        s.configLastAttempt = input.optionalI64()
        let now = input.i64()
        let trigger = SyncTrigger.allCases[Int(input.byte()) % SyncTrigger.allCases.count]
        let network = NetworkKind.allCases[Int(input.byte()) % NetworkKind.allCases.count]
        let sources = SyncSources(cwa: input.bool(), dp3t: input.bool(), traceWarnings: input.bool(), traceKeys: input.bool())
        _ = SyncPlanner.plan(s, now: now, trigger: trigger, network: network, sources: sources)
        let backoff = SyncPlanner.backoff(failures: s.failures, seed: s.jitterSeed)
        guard backoff >= 0 else { fatalError("a negative backoff: \(backoff)") }
        let code = input.i64()
        let result = TestResult.validated(code: code, rapidAntigen: input.bool())
        _ = PollingSchedule.nextPoll(rapid: input.bool(), registeredAt: input.i64(), lastPoll: input.optionalI64(), result: result)
        let state = PushRule.State(enActive: input.bool(), hasCheckIns: input.bool(), isolated: input.bool(), registeredAt: input.optionalI64())
        _ = PushRule.decide(state, PushRule.Event.allCases[Int(input.byte()) % PushRule.Event.allCases.count], now: input.i64())
        let onset = input.i64()
        let symptoms: [Symptoms] = [.noInformation, .none, .onsetUnknown, .onsetLastSevenDays, .onsetOneToTwoWeeks, .onsetOverTwoWeeks, .onset(day: onset)]
        let chosen = symptoms[Int(input.byte()) % symptoms.count]
        _ = KeyEnrichment.values(keyDay: input.i64(), today: input.i64(), symptoms: chosen)
        let keys = (0 ..< Int(input.byte() & 31)).map { i in
            ExposureKey(keyData: KeyData([UInt8](repeating: UInt8(i), count: 16))!,
                        rollingStartIntervalNumber: Int32(truncatingIfNeeded: input.i64()), rollingPeriod: Int32(truncatingIfNeeded: input.i64()))
        }
        let enriched = KeyEnrichment.enrich(keys, now: input.i64(), symptoms: chosen)
        guard enriched.keys.count <= KeyEnrichment.maxKeys, enriched.unaligned <= keys.count else { fatalError("enrich: \(enriched.keys.count) keys, \(enriched.unaligned) unaligned of \(keys.count)") }
    default:
        expecting { _ = try PublicKey(material: rest) }
        expecting { _ = try JSONParser.parse(rest) }
    }
    return 0
}
