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

/// Writes an output struct that may grow (its first field is a uint32_t
/// struct_size the caller sets): only the bytes the caller's struct holds
/// of those this library knows, the rest of a larger struct zeroed, and
/// struct_size left as the caller set it. `minimum` is the size of the
/// struct's first version, below which a caller cannot have been built.
func writeOutput<T>(_ value: T, to pointer: UnsafeMutablePointer<T>?, _ name: String, minimum: Int = MemoryLayout<T>.size) throws {
    let out = UnsafeMutableRawPointer(try required(pointer, name))
    let size = Int(out.load(as: UInt32.self))
    guard size >= minimum else {
        throw EncoreError(.invalidArgument, "\(name)->struct_size is \(size), expected at least \(minimum): set it to sizeof the struct (ENCORE_OUTPUT_INIT) before the call")
    }
    let known = MemoryLayout<T>.size
    withUnsafeBytes(of: value) { bytes in
        // The first 4 bytes are struct_size: kept as the caller set it.
        guard let base = bytes.baseAddress else { return }
        (out + 4).copyMemory(from: base + 4, byteCount: min(size, known) - 4)
    }
    if size > known { (out + known).initializeMemory(as: UInt8.self, repeating: 0, count: size - known) }
}
