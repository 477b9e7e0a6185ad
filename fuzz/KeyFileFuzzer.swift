// libFuzzer entry point for the key-file parser. scripts/fuzz.sh compiles
// this file together with the EncoreCore sources into one module (so the
// harness needs no import of EncoreCore) with -sanitize=fuzzer,address.
//
// Every input is opened twice: with verification on against the trust list
// of the bundled samples (so mutated signed samples reach the ECDSA path),
// and with verification off (so everything past the container is parsed even
// without a valid signature). When a file opens, both key lists are read in
// full. Any EncoreError is an expected outcome; a crash, a sanitizer report,
// a leak or an out-of-memory is a finding.

import CEncoreShim

/// The published keys of the signed samples under Tests/data/exports
/// (google-sample 310/v1 and en-server some_id/1): public keys, embedded so
/// that the fuzzer binary reproduces a crasher without the source tree.
private let samplePEMs: [(id: String, version: String, pem: String)] = [
    ("310", "v1", """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE49JY6kekDgxj3Crm4y6kEHdfoKQF
        SNDM4mV9cgDb+e5nOAw0GeRoRThCu9/wX5wDT2QloFoOjl2pGZHI0f3C3w==
        -----END PUBLIC KEY-----

        """),
    ("some_id", "1", """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEml59itec9qzwVojreLXdPNRsUWzf
        YHc1cKvIIi6/H56AJS/kZEYQnfDpxrgyGhdAm+pNN2GAJ3XdnQZ1Sk4amg==
        -----END PUBLIC KEY-----

        """),
]

private let sampleTrust: TrustList = harnessFixture("the samples' trust list") {
    let trust = TrustList()
    for k in samplePEMs { try trust.add(id: k.id, version: k.version, material: Array(k.pem.utf8)) }
    return trust
}

/// Opens the input and, when it opens, reads every key of both lists.
private func exercise(_ input: UnsafeRawBufferPointer, _ options: KeyFileOptions) {
    let file: KeyFile
    do {
        file = try KeyFile(bytes: input, options: options)
    } catch is EncoreError {
        return
    } catch {
        fatalError("KeyFile threw something that is not an EncoreError: \(error)")
    }
    for list in [KeyList.keys, .revisedKeys] {
        var n: UInt64 = 0
        do {
            try file.forEachKey(in: list) { _ in n += 1 }
        } catch {
            // The checking pass accepted the file: reading it must not fail.
            fatalError("reading \(list) of an opened file failed: \(error)")
        }
        if n != file.count(of: list) {
            fatalError("\(list): read \(n) keys, the metadata counts \(file.count(of: list))")
        }
    }
    // Chunked reading must visit the same keys as the single pass.
    var cursor = KeyCursor(list: .keys)
    var chunked: UInt64 = 0
    do {
        while try file.read(&cursor, maxCount: 7, { _ in chunked += 1 }) > 0 {}
    } catch {
        fatalError("chunked reading failed: \(error)")
    }
    if chunked != file.count(of: .keys) {
        fatalError("chunked reading delivered \(chunked) keys, the metadata counts \(file.count(of: .keys))")
    }
    checkPrefilter(file)
}

/// Matching's prefilter (the C walker's shortcuts included) may drop only
/// keys its rule drops: valid keys of the main list, not revoked, not too
/// old, with no sighted interval within their validity ± the drift. (It
/// need not drop them all: keys the walker leaves to protobuf-c pass, and
/// matching's own filter skips them later.) The sighting is placed in the
/// first key's validity, so that mutated samples have keys on both sides.
private func checkPrefilter(_ file: KeyFile) {
    var all: [(KeyList, ExposureKey)] = [], kept: [(KeyList, ExposureKey)] = []
    do {
        let plain = try file.forEachKeyInFileOrder { all.append(($0, $1)) }
        guard let first = all.first(where: { $0.0 == .keys })?.1 else { return }
        let interval = Int64(first.rollingStartIntervalNumber) + 72, drift: Int64 = 12, oldest = (interval - 3 * 144) * 600
        let sighted = try SightedIntervals(sortedTimes: [interval * 600])
        let filtered = try withExtendedLifetime(sighted) {
            try file.forEachKeyInFileOrder(prefilter: KeyPrefilter(sighted: sighted.pointer, drift: drift, oldest: oldest)) { kept.append(($0, $1)) }
        }
        func droppable(_ list: KeyList, _ k: ExposureKey) -> Bool {
            guard list == .keys, k.reportType != .revoked else { return false }
            let start = Int64(k.rollingStartIntervalNumber), end = start + Int64(k.rollingPeriod)
            var lower: Int64 = 0, upper: Int64 = 0
            return end * 600 >= oldest && withExtendedLifetime(sighted) { enc_sighted_range(sighted.pointer, start, end, drift, &lower, &upper) } == 0
        }
        // kept is `all` less some droppable keys, in the same order.
        var next = 0
        for (list, k) in all {
            if next < kept.count, kept[next].0 == list, kept[next].1 == k {
                next += 1
            } else if !droppable(list, k) {
                fatalError("the prefilter dropped a key its rule keeps: \(k) of \(list)")
            }
        }
        guard next == kept.count else { fatalError("the prefilter delivered keys the file does not hold, or out of order") }
        guard filtered.fields == plain.fields, filtered.dropped == UInt64(all.count - kept.count) else {
            fatalError("the prefilter's counts disagree: \(filtered) against \(plain) and \(all.count - kept.count) dropped")
        }
    } catch {
        fatalError("reading an opened file with the prefilter failed: \(error)")
    }
}

/// The KeyFile target's input (Main.swift calls it for FUZZ_TARGET=keyfile).
func fuzzKeyFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // The default limits, as callers get them: libFuzzer's malloc limit
    // (= -rss_limit_mb) turns any allocation beyond what they allow into a
    // reported finding.
    exercise(input, KeyFileOptions(verify: true, trust: sampleTrust))
    exercise(input, KeyFileOptions(verify: false))
    return 0
}
