import CEncoreTypes
import EncoreClient
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The one way lists leave the library: items first ..< first + capacity of
/// a list, converted into the caller's C structs, each `elementSize` bytes
/// apart (the caller's sizeof its element struct); *copied tells how many
/// (fewer than capacity only at the end). Each element gets the fields the
/// caller's struct has (see ElementSlots). One rule for `first` everywhere:
/// equal to the number of items copies nothing; past it is
/// ENCORE_ERR_OUT_OF_RANGE (for a store table, the number of items at the
/// time of the call: a reader whose rows were purged meanwhile learns so).
///
/// `fill` writes items from index `start` into the slots and returns how
/// many; `count` is asked only when nothing was copied, so paging through a
/// store table costs no extra query until its end.
func copyOut<C>(first: UInt64, _ out: UnsafeMutablePointer<C>?, _ elementSize: Int, _ capacity: Int,
                _ copied: UnsafeMutablePointer<Int>?, count: () throws -> UInt64,
                fill: (_ start: UInt64, _ into: ElementSlots<C>) throws -> Int) throws {
    let copied = try required(copied, "copied")
    let minimum = firstVersionSize(C.self)
    guard elementSize >= minimum, elementSize <= Int(UInt32.max) else {
        throw EncoreError(.invalidArgument, "element_size is \(UInt(bitPattern: elementSize)), expected at least \(minimum): pass sizeof the element struct")
    }
    guard capacity >= 0, capacity <= Int.max / elementSize else {
        throw EncoreError(.invalidArgument, "capacity \(UInt(bitPattern: capacity)) is too large")
    }
    var n = 0
    if capacity > 0 {
        let base = UnsafeMutableRawPointer(try required(out, "out"))
        n = try fill(first, ElementSlots(base: base, size: elementSize, count: capacity))
    }
    if n == 0 {
        let total = try count()
        guard first <= total else {
            throw EncoreError(.outOfRange, "first item \(first) is past the end of the list (\(total) items)")
        }
    }
    copied.pointee = n
}

/// The caller's array of list elements: `count` slots of `size` bytes. An
/// element struct starts with a uint32_t struct_size that the library
/// writes: min(size, the struct's size in this library); the slot gets
/// that many bytes of the element, the rest of a larger slot is zeroed. So
/// a caller built against an older, smaller struct gets the fields it
/// knows, and a newer one sees from struct_size which fields were written.
/// encore_bytes, which has no struct_size, is written as it is.
struct ElementSlots<C> {
    let base: UnsafeMutableRawPointer
    let size: Int
    let count: Int

    func put(_ value: C, at index: Int) {
        let slot = base + index * size
        let known = MemoryLayout<C>.size, written = min(size, known)
        withUnsafeBytes(of: value) { bytes in
            guard let from = bytes.baseAddress else { return }
            slot.copyMemory(from: from, byteCount: written)
        }
        if hasStructSize(C.self) { slot.storeBytes(of: UInt32(written), as: UInt32.self) }
        if size > known { (slot + known).initializeMemory(as: UInt8.self, repeating: 0, count: size - known) }
    }
}

/// copyOut of a list held in memory.
func copyOut<Item, C>(_ items: [Item], first: UInt64, _ out: UnsafeMutablePointer<C>?, _ elementSize: Int, _ capacity: Int,
                      _ copied: UnsafeMutablePointer<Int>?, _ convert: (Item) throws -> C) throws {
    try copyOut(first: first, out, elementSize, capacity, copied, count: { UInt64(items.count) }) { start, slots in
        guard start < UInt64(items.count) else { return 0 }
        let from = Int(start), n = min(slots.count, items.count - from)
        for i in 0 ..< n { slots.put(try convert(items[from + i]), at: i) }
        return n
    }
}

/// copyOut of a store table read with offset and limit (`forEach` calls
/// its body once per row, in order).
func copyOut<Item, C>(first: UInt64, _ out: UnsafeMutablePointer<C>?, _ elementSize: Int, _ capacity: Int,
                      _ copied: UnsafeMutablePointer<Int>?, count: () throws -> Int,
                      forEach: (_ offset: Int, _ limit: Int, _ body: (Item) throws -> Void) throws -> Void,
                      _ convert: @escaping (Item) -> C) throws {
    try copyOut(first: first, out, elementSize, capacity, copied, count: { UInt64(try count()) }) { start, slots in
        var n = 0
        try forEach(Int(clamping: start), slots.count) { item in
            guard n < slots.count else { return }
            slots.put(convert(item), at: n)
            n += 1
        }
        return n
    }
}
