#if canImport(Glibc)
import Glibc
#endif

/// Large buffers kept for reuse: each key file needs a few megabytes for
/// its zip and its export.bin, and fresh memory costs a page fault per 4 KB
/// page and the kernel's zeroing of it. malloc alone reuses such buffers
/// only until it trims its heap, which it does whenever a thread has freed
/// more than a few megabytes at once (as one holding two files does); that
/// made a quarter of matching's system time. Matching takes its buffers
/// from `shared`, which keeps at most `maxBytes` of free buffers for the
/// next file or run. Safe from any thread.
package final class BufferPool: @unchecked Sendable {
    // @unchecked: the free list is only touched under its lock.
    /// Smaller buffers are not worth keeping: malloc serves them well.
    package static let minimumSize = 64 << 10
    /// Matching's pool: enough for two files per thread of a few megabytes each.
    package static let shared = BufferPool(maxBytes: 24 << 20)

    /// A malloc'd buffer (@unchecked: owned by whoever holds the Block).
    package struct Block: @unchecked Sendable {
        package let base: UnsafeMutableRawPointer
        package let capacity: Int
    }

    private let free = Locked<(blocks: [Block], bytes: Int)>(([], 0))
    private let maxBytes: Int

    package init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// What to allocate for `count` bytes: large buffers are rounded up to
    /// a whole quarter megabyte, so that one serves the next file of about
    /// the same size (sizes differ by a few bytes from file to file).
    package static func capacity(for count: Int) -> Int {
        let step = 1 << 18
        guard count >= minimumSize, count <= Int.max - step else { return max(count, 1) }
        return (count + step - 1) / step * step
    }

    deinit {
        free.withLock { kept in
            for b in kept.blocks { Glibc.free(b.base) }
            kept = ([], 0)
        }
    }

    /// A kept buffer of at least `count` bytes (the smallest that fits), or
    /// nil: the caller allocates.
    package func take(_ count: Int) -> Block? {
        guard count >= Self.minimumSize else { return nil }
        return free.withLock { kept in
            var best: Int?
            for (i, b) in kept.blocks.enumerated() where b.capacity >= count && b.capacity < (best.map { kept.blocks[$0].capacity } ?? .max) {
                best = i
            }
            guard let best else { return nil }
            kept.bytes -= kept.blocks[best].capacity
            return kept.blocks.remove(at: best)
        }
    }

    /// Takes back a buffer from `take` or malloc; frees it when the pool
    /// would hold more than its limit.
    package func give(_ base: UnsafeMutableRawPointer, capacity: Int) {
        let kept = capacity >= Self.minimumSize && free.withLock { kept in
            guard capacity <= maxBytes - kept.bytes else { return false }
            kept.blocks.append(Block(base: base, capacity: capacity))
            kept.bytes += capacity
            return true
        }
        if !kept { Glibc.free(base) }
    }
}
