import EncoreCore

/// The one way lists leave the library: items first ..< first + capacity of
/// a list, converted into the caller's C structs; *copied tells how many
/// (fewer than capacity only at the end). One rule for `first` everywhere:
/// equal to the number of items copies nothing; past it is
/// ENCORE_ERR_OUT_OF_RANGE (for a store table, the number of items at the
/// time of the call: a reader whose rows were purged meanwhile learns so).
///
/// `fill` writes items from index `start` into the buffer and returns how
/// many; `count` is asked only when nothing was copied, so paging through a
/// store table costs no extra query until its end.
func copyOut<C>(first: UInt64, _ out: UnsafeMutablePointer<C>?, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?,
                count: () throws -> UInt64,
                fill: (_ start: UInt64, _ into: UnsafeMutableBufferPointer<C>) throws -> Int) throws {
    let copied = try required(copied, "copied")
    guard capacity >= 0, capacity <= Int.max / max(MemoryLayout<C>.stride, 1) else {
        throw EncoreError(.invalidArgument, "capacity \(UInt(bitPattern: capacity)) is too large")
    }
    var n = 0
    if capacity > 0 {
        n = try fill(first, UnsafeMutableBufferPointer(start: try required(out, "out"), count: capacity))
    }
    if n == 0 {
        let total = try count()
        guard first <= total else {
            throw EncoreError(.outOfRange, "first item \(first) is past the end of the list (\(total) items)")
        }
    }
    copied.pointee = n
}

/// copyOut of a list held in memory.
func copyOut<Item, C>(_ items: [Item], first: UInt64, _ out: UnsafeMutablePointer<C>?, _ capacity: Int,
                      _ copied: UnsafeMutablePointer<Int>?, _ convert: (Item) -> C) throws {
    try copyOut(first: first, out, capacity, copied, count: { UInt64(items.count) }) { start, buffer in
        guard start < UInt64(items.count) else { return 0 }
        let from = Int(start), n = min(buffer.count, items.count - from)
        for i in 0 ..< n { buffer[i] = convert(items[from + i]) }
        return n
    }
}

/// copyOut of a store table read with offset and limit (`forEach` calls
/// its body once per row, in order).
func copyOut<Item, C>(first: UInt64, _ out: UnsafeMutablePointer<C>?, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?,
                      count: () throws -> Int,
                      forEach: (_ offset: Int, _ limit: Int, _ body: (Item) throws -> Void) throws -> Void,
                      _ convert: @escaping (Item) -> C) throws {
    try copyOut(first: first, out, capacity, copied, count: { UInt64(try count()) }) { start, buffer in
        var n = 0
        try forEach(Int(clamping: start), buffer.count) { item in
            guard n < buffer.count else { return }
            buffer[n] = convert(item)
            n += 1
        }
        return n
    }
}
