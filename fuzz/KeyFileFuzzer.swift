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

private let sampleTrust: TrustList = {
    let trust = TrustList()
    for k in samplePEMs {
        do {
            try trust.add(id: k.id, version: k.version, material: Array(k.pem.utf8))
        } catch {
            fatalError("fuzz harness: cannot load the sample trust key \(k.id)/\(k.version): \(error)")
        }
    }
    return trust
}()

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
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // The default limits, as callers get them: libFuzzer's malloc limit
    // (= -rss_limit_mb) turns any allocation beyond what they allow into a
    // reported finding.
    exercise(input, KeyFileOptions(verify: true, trust: sampleTrust))
    exercise(input, KeyFileOptions(verify: false))
    return 0
}
