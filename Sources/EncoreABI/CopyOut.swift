import EncoreCore

/// The one way results leave the library as arrays: items first ..<
/// first + capacity of a list, converted into the caller's C structs;
/// *copied tells how many (fewer only at the end). `first` past the end is
/// ENCORE_ERR_OUT_OF_RANGE; equal to the count copies nothing.
func copyOut<Item, C>(_ items: [Item], first: UInt64, _ out: UnsafeMutablePointer<C>?, _ capacity: Int,
                      _ copied: UnsafeMutablePointer<Int>?, _ convert: (Item) -> C) throws {
    let copied = try required(copied, "copied")
    guard capacity >= 0, capacity <= Int.max / max(MemoryLayout<C>.stride, 1) else {
        throw EncoreError(.invalidArgument, "capacity \(UInt(bitPattern: capacity)) is too large")
    }
    guard first <= UInt64(items.count) else {
        throw EncoreError(.outOfRange, "first item \(first) is past the end of the list (\(items.count) items)")
    }
    let start = Int(first)
    let n = min(capacity, items.count - start)
    if n > 0 {
        let out = try required(out, "out")
        for i in 0 ..< n { out[i] = convert(items[start + i]) }
    }
    copied.pointee = n
}
