// What the libFuzzer harnesses share: scripts/fuzz.sh compiles this file
// into every target, beside the target's own harness.

/// libFuzzer's input as the harnesses that choose by the first byte read
/// it: that byte, and the rest as the input proper. nil for an empty input.
struct FuzzInput {
    let selector: UInt8
    let rest: UnsafeRawBufferPointer

    init?(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        guard let data, size > 0 else { return nil }
        selector = data[0]
        rest = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    }
}

/// Runs `body`, where an EncoreError is an expected outcome: any other
/// error is a finding.
func expecting(_ body: () throws -> Void) {
    do {
        try body()
    } catch is EncoreError {
        return
    } catch {
        fatalError("fuzz harness: an error that is not an EncoreError: \(error)")
    }
}

/// What a harness builds once before any input (`what` it is); failing to
/// build it is the harness's own fault.
func harnessFixture<T>(_ what: String, _ make: () throws -> T) -> T {
    do {
        return try make()
    } catch {
        fatalError("fuzz harness: cannot make \(what): \(error)")
    }
}
