// libFuzzer entry point for CWA check-ins' parsers: the event QR code and
// the trace warning package. scripts/fuzz.sh (FUZZ_TARGET=checkin) compiles
// this file together with the layers below EncoreServices into one module,
// so the harness needs no imports of them, with -sanitize=fuzzer,address.
//
// The first byte of an input chooses what the rest is:
//   0  a QR code's text (CheckInQRCode.parse)
//   1  a QRCodePayload's bytes (CheckInQRCode.location(payload:))
//   2  a TraceWarningPackage's bytes (export.bin) scanned against an index
//      of the locations below
//   3  a signed package (zip + export.sig) opened with verification off,
//      then scanned as 2
// Any EncoreError is an expected outcome; a crash, a sanitizer report, a
// leak, an out-of-memory, or a fatalError of the harness (an invariant of a
// result that does not hold) is a finding. fuzz/checkin_seeds.py writes the
// seeds: the real QR code, its payload, and packages whose reports for the
// real location carry right MACs (so mutations reach decryption).

/// A real CWA QR code's payload (the iOS app's scanner tests): "Agway Inc.".
private let realPayloadBase64URL =
    "CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
    + "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA"

/// The user's locations: the real one (two check-ins) and one of 32 zero
/// bytes (the seeds' second location).
private let index: LocationIndex = harnessFixture("the location index") {
    guard let payload = Base64.decodeURL(realPayloadBase64URL) else { fatalError("fuzz harness: the real payload does not decode") }
    let real = TraceLocation.locationId(payload: payload)
    return try LocationIndex(checkIns: [(id: 1, locationId: real), (id: 2, locationId: real), (id: 3, locationId: [UInt8](repeating: 0, count: 32))])
}

/// What a parsed location must satisfy whatever the input was.
private func checkLocation(_ l: TraceLocation) {
    for text in [l.description, l.address] {
        guard !text.isEmpty, text.utf16.count <= CheckInLocationRules.maxTextLength, !text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) else {
            fatalError("a location with an empty, multi-line or over-\(CheckInLocationRules.maxTextLength)-character text was accepted")
        }
    }
    guard l.endTimestamp == 0 || l.endTimestamp >= l.startTimestamp else { fatalError("a location that ends before it starts was accepted") }
    guard l.startTimestamp == 0 || l.endTimestamp != 0 else { fatalError("a location with a start and no end was accepted") }
    guard l.locationId == TraceLocation.locationId(payload: l.payload), l.locationIdHash == TraceLocation.locationIdHash(l.locationId) else {
        fatalError("the location's ids are not those of its payload")
    }
    let length = l.defaultCheckInMinutes
    guard (15 ... 1425).contains(length), length % 15 == 0 else { fatalError("default check-in length \(length) out of its bounds") }
    // The payload's text form reads back to the same location (when it fits
    // a QR code: a payload near the byte limit is longer as text).
    guard CheckInQRCode.text(payload: l.payload).utf8.count <= QRCodeLimits.maxTextBytes else { return }
    do {
        let again = try CheckInQRCode.parse(CheckInQRCode.text(payload: l.payload))
        guard again == l else { fatalError("the QR code of a parsed payload reads as another location") }
    } catch {
        fatalError("the QR code of a parsed payload does not parse: \(error)")
    }
}

/// What a scan must satisfy: every item counted once, matches point at the
/// index, and their records keep the rules.
private func checkScan(_ s: WarningScan) {
    guard s.matches.count + s.skipped <= s.warnings + s.reports, s.skippedByMAC <= s.skipped else {
        fatalError("scan counts disagree: \(s.matches.count) matches + \(s.skipped) skipped of \(s.warnings) warnings + \(s.reports) reports")
    }
    var items = Set<Int>()
    for m in s.matches {
        guard index.entries.indices.contains(m.entry), items.insert(m.item).inserted else { fatalError("a match points nowhere or twice: \(m)") }
        guard m.period > 0, (1 ... 8).contains(m.transmissionRiskLevel) else { fatalError("a match breaks the record rules: \(m)") }
    }
}

private func scan(_ payload: UnsafeRawBufferPointer) {
    expecting { checkScan(try TraceWarningScanner.scan(payload: payload, index: index)) }
}

/// The CheckIn target's input (Main.swift calls it for FUZZ_TARGET=checkin).
func fuzzCheckIn(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let rest = input.rest
    expecting {
        switch input.selector & 3 {
        case 0:
            checkLocation(try CheckInQRCode.parse(String(decoding: rest, as: UTF8.self)))
        case 1:
            checkLocation(try CheckInQRCode.location(payload: Array(rest)))
        case 2:
            scan(rest)
        default:
            let package = try SignedPackage(bytes: Array(rest), trust: nil, verify: false)
            package.payload.withUnsafeBytes { scan($0) }
        }
    }
    return 0
}
