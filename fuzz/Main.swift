// The one fuzzer binary's entry point: scripts/fuzz.sh builds every harness
// into build/fuzz/encore-fuzzer once (the core's layers compile once, not
// once per target) and sets ENCORE_FUZZ_TARGET to pick whose inputs these are.
import Glibc

/// Each target by the name FUZZ_TARGET gives it.
private let harnesses: [String: (UnsafePointer<UInt8>?, Int) -> CInt] = [
    "keyfile": fuzzKeyFile,
    "checkin": fuzzCheckIn,
    "crowdnotifier": fuzzCrowdNotifier,
    "protocols": fuzzProtocols,
]

/// The harness ENCORE_FUZZ_TARGET names, chosen once.
private let selected: (UnsafePointer<UInt8>?, Int) -> CInt = {
    let name = getenv("ENCORE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let harness = harnesses[name] else {
        let known = harnesses.keys.sorted().joined(separator: ", ")
        fatalError("encore-fuzzer: ENCORE_FUZZ_TARGET must be one of \(known), not '\(name)'")
    }
    return harness
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected(data, size)
}
