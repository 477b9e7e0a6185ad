import CEncoreTypes
import EncoreKeyFiles
import EncoreSupport

/// Extensible option structs: the caller says how large its struct is. A
/// caller built against a newer header may pass a larger one; the fields
/// this library does not know must then be zero, since it cannot honour them.
/// Returns the struct as this library knows it.
func checkedStruct<T>(_ pointer: UnsafePointer<T>, _ initName: String) throws -> T {
    // struct_size is every such struct's first field, a uint32_t.
    let size = Int(UnsafeRawPointer(pointer).load(as: UInt32.self))
    let known = MemoryLayout<T>.size
    guard size >= known else {
        throw EncoreError(.invalidArgument, "options.struct_size is \(size), expected at least \(known): initialise options with \(initName)(&options, sizeof options)")
    }
    let unknown = UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer) + known, count: size - known)
    guard unknown.allSatisfy({ $0 == 0 }) else {
        throw EncoreError(.invalidArgument, "options set fields that this version of libencore does not know")
    }
    return pointer.pointee
}

/// Zeroes a caller's struct of `size` bytes before its known part is written.
func initStruct<T>(_ out: UnsafeMutablePointer<T>, _ size: Int, known: Int) throws {
    guard size >= known, size <= Int(UInt32.max) else {
        throw EncoreError(.invalidArgument, "struct_size is \(UInt(bitPattern: size)), expected at least \(known)")
    }
    UnsafeMutableRawPointer(out).initializeMemory(as: UInt8.self, repeating: 0, count: size)
}

/// The body of every *_init(options, struct_size): the pointer and the size
/// checked, the caller's struct of that size zeroed, its struct_size (the
/// first field, a uint32_t) set, then the library's defaults written.
func initOptions<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String, _ size: Int, _ defaults: (inout T) -> Void) -> encore_status {
    guarded {
        let out = try required(pointer, name)
        try initStruct(out, size, known: MemoryLayout<T>.size)
        UnsafeMutableRawPointer(out).storeBytes(of: UInt32(size), as: UInt32.self)
        defaults(&out.pointee)
    }
}

/// Structs whose first version was smaller than they are now: the smallest
/// struct_size a caller can have been built with. Every other struct's
/// first version is its size in this library.
protocol GrownStruct { static var firstVersionSize: Int { get } }

func firstVersionSize<T>(_ type: T.Type) -> Int {
    (type as? GrownStruct.Type)?.firstVersionSize ?? MemoryLayout<T>.size
}

/// Every struct crossing the ABI starts with a uint32_t struct_size, but
/// encore_bytes (and the plain HTTP header pair, never copied out).
func hasStructSize<T>(_ type: T.Type) -> Bool {
    ObjectIdentifier(type) != ObjectIdentifier(encore_bytes.self)
}

/// Reads an input struct (its first field a uint32_t struct_size the
/// caller sets): a struct of an older, smaller version gets zeros for the
/// fields it lacks; a newer, larger one must have zeros in the fields this
/// library does not know, since it cannot honour them. `stride` (for an
/// element of an array) is the most struct_size may be.
func readInput<T>(_ pointer: UnsafeRawPointer, _ name: String, stride: Int? = nil) throws -> T {
    let size = Int(pointer.loadUnaligned(as: UInt32.self))
    let minimum = firstVersionSize(T.self), known = MemoryLayout<T>.size
    guard size >= minimum else {
        throw EncoreError(.invalidArgument, "\(name).struct_size is \(size), expected at least \(minimum): set it to sizeof the struct")
    }
    if let stride, size > stride {
        throw EncoreError(.invalidArgument, "\(name).struct_size is \(size), larger than the element_size \(stride)")
    }
    if size > known {
        guard UnsafeRawBufferPointer(start: pointer + known, count: size - known).allSatisfy({ $0 == 0 }) else {
            throw EncoreError(.invalidArgument, "\(name) sets fields that this version of libencore does not know")
        }
    }
    let value = UnsafeMutableRawPointer.allocate(byteCount: known, alignment: MemoryLayout<T>.alignment)
    defer { value.deallocate() }
    value.initializeMemory(as: UInt8.self, repeating: 0, count: known)
    value.copyMemory(from: pointer, byteCount: min(size, known))
    return value.load(as: T.self)
}

/// An optional input struct: nil for NULL.
func readInput<T>(_ pointer: UnsafePointer<T>?, _ name: String) throws -> T? {
    guard let pointer else { return nil }
    return try readInput(UnsafeRawPointer(pointer), name) as T
}

/// Reads an input array of `count` structs `elementSize` bytes apart (the
/// caller's sizeof its element struct), each as readInput does.
func readInputs<T>(_ pointer: UnsafePointer<T>?, elementSize: Int, count: Int, _ name: String) throws -> [T] {
    guard count > 0 else {
        guard count == 0 else { throw EncoreError(.invalidArgument, "count \(UInt(bitPattern: count)) is too large") }
        return []
    }
    let minimum = firstVersionSize(T.self)
    guard elementSize >= minimum, elementSize <= Int(UInt32.max) else {
        throw EncoreError(.invalidArgument, "element_size is \(UInt(bitPattern: elementSize)), expected at least \(minimum): pass sizeof the element struct")
    }
    guard count <= Int.max / elementSize else { throw EncoreError(.invalidArgument, "count \(UInt(bitPattern: count)) is too large") }
    let base = UnsafeRawPointer(try required(pointer, name))
    return try (0 ..< count).map { try readInput(base + $0 * elementSize, "\(name)[\($0)]", stride: elementSize) }
}

/// Checks an output struct's struct_size (before work that would be undone
/// by the error) and returns it.
@discardableResult
func checkOutput<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String) throws -> Int {
    let size = Int(UnsafeRawPointer(try required(pointer, name)).load(as: UInt32.self)), minimum = firstVersionSize(T.self)
    guard size >= minimum else {
        throw EncoreError(.invalidArgument, "\(name)->struct_size is \(size), expected at least \(minimum): set it to sizeof the struct (ENCORE_OUTPUT_INIT) before the call")
    }
    return size
}

/// Writes an optional value as C reads it: the field and its has_ flag
/// (both 0 for nil).
func setOptional<T: Numeric>(_ field: inout T, _ has: inout Int32, _ value: T?) {
    has = value == nil ? 0 : 1
    field = value ?? 0
}

/// Writes an output struct that may grow (its first field is a uint32_t
/// struct_size the caller sets): only the bytes the caller's struct holds
/// of those this library knows, the rest of a larger struct zeroed, and
/// struct_size left as the caller set it. Below the size of the struct's
/// first version, a caller cannot have been built: an error.
func writeOutput<T>(_ value: T, to pointer: UnsafeMutablePointer<T>?, _ name: String) throws {
    let size = try checkOutput(pointer, name)
    let out = UnsafeMutableRawPointer(try required(pointer, name))
    let known = MemoryLayout<T>.size
    withUnsafeBytes(of: value) { bytes in
        // The first 4 bytes are struct_size: kept as the caller set it.
        guard let base = bytes.baseAddress else { return }
        (out + 4).copyMemory(from: base + 4, byteCount: min(size, known) - 4)
    }
    if size > known { (out + known).initializeMemory(as: UInt8.self, repeating: 0, count: size - known) }
}

/// The struct_size of a struct the library fills in whole (an element
/// before ElementSlots trims it, a request for the host's callback).
func structSize<T>(_ type: T.Type) -> UInt32 { UInt32(MemoryLayout<T>.size) }

/// A C progress callback (NULL: none) as the core's handler: nonzero from
/// the callback cancels.
func progressHandler(_ callback: encore_progress_fn?, _ context: UnsafeMutableRawPointer?) -> ProgressHandler? {
    guard let callback else { return nil }
    return { done, total in callback(context, done, total) == 0 }
}
