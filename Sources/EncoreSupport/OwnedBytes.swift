#if canImport(Glibc)
import Glibc
#endif

/// A malloc'd byte buffer. Unlike `[UInt8]` its allocation can fail without
/// trapping (large key files are untrusted input), it is not zero-filled
/// first, and it can be handed around without copying.
public final class OwnedBytes: @unchecked Sendable {
    // @unchecked: the memory is written only while the owner fills it, before
    // the buffer is shared; afterwards it is read-only.
    public let count: Int
    private let base: UnsafeMutableRawPointer
    /// Where the memory goes back to, if anywhere, and how much there is.
    private let pool: BufferPool?
    private let capacity: Int

    /// Allocates `count` uninitialised bytes, or throws `.outOfMemory`.
    public convenience init(uninitializedCount count: Int) throws {
        try self.init(uninitializedCount: count, pool: nil)
    }

    /// The same, reusing a buffer of `pool` (and giving it back) when there is one.
    package init(uninitializedCount count: Int, pool: BufferPool?) throws {
        guard count >= 0 else { throw EncoreError(.outOfMemory, "cannot allocate \(count) bytes") }
        if let kept = pool?.take(count) {
            (base, capacity) = (kept.base, kept.capacity)
        } else {
            let size = pool == nil ? max(count, 1) : BufferPool.capacity(for: count)
            guard let p = malloc(size) else { throw EncoreError(.outOfMemory, "cannot allocate \(count) bytes") }
            (base, capacity) = (p, size)
        }
        self.count = count
        self.pool = pool
    }

    public convenience init(copying source: UnsafeRawBufferPointer) throws {
        try self.init(uninitializedCount: source.count)
        if let from = source.baseAddress, source.count > 0 {
            base.copyMemory(from: from, byteCount: source.count)
        }
    }

    public static func copy(_ bytes: [UInt8]) throws -> OwnedBytes {
        try bytes.withUnsafeBytes { try OwnedBytes(copying: $0) }
    }

    deinit {
        if let pool { pool.give(base, capacity: capacity) } else { free(base) }
    }

    /// The memory, valid only while this object is alive: internal, since a
    /// caller holding only the pointer may see the object freed under it
    /// (`Array(read().buffer)` would copy freed memory). Outside the module
    /// use `withUnsafeBytes` or `bytes`.
    package var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// A copy of the bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Write access for the code that fills a freshly allocated buffer.
    package var mutableBuffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(buffer) }
    }
}
