import EncoreCore

/// Extensible option structs: the caller says how large its struct is. A
/// caller built against a newer header may pass a larger one; the fields
/// this library does not know must then be zero, since it cannot honour them.
func checkStructSize(_ pointer: UnsafeRawPointer, _ size: Int, known: Int, _ initName: String) throws {
    guard size >= known else {
        throw EncoreError(.invalidArgument, "options.struct_size is \(size), expected at least \(known): initialise options with \(initName)(&options, sizeof options)")
    }
    let unknown = UnsafeRawBufferPointer(start: pointer + known, count: size - known)
    guard unknown.allSatisfy({ $0 == 0 }) else {
        throw EncoreError(.invalidArgument, "options set fields that this version of libencore does not know")
    }
}

/// Zeroes a caller's struct of `size` bytes before its known part is written.
func initStruct<T>(_ out: UnsafeMutablePointer<T>, _ size: Int, known: Int) throws {
    guard size >= known, size <= Int(UInt32.max) else {
        throw EncoreError(.invalidArgument, "struct_size is \(UInt(bitPattern: size)), expected at least \(known)")
    }
    UnsafeMutableRawPointer(out).initializeMemory(as: UInt8.self, repeating: 0, count: size)
}
