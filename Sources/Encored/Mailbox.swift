#if canImport(Glibc)
import Glibc
#endif
import EncoreSupport

/// What worker threads hand to the loop: closures run on the loop's
/// thread at its next turn (the loop is woken for them). Only the loop
/// touches the service's state; workers touch what they were given.
final class Mailbox: Sendable {
    private let items = Locked<[@Sendable () -> Void]>([])
    private let waker: LoopWaker

    init(waker: LoopWaker) { self.waker = waker }

    /// From any thread.
    func post(_ body: @escaping @Sendable () -> Void) {
        items.withLock { $0.append(body) }
        waker.wake()
    }

    /// On the loop: the closures posted so far, oldest first.
    func drain() {
        let taken = items.withLock { list -> [@Sendable () -> Void] in
            defer { list = [] }
            return list
        }
        for body in taken { body() }
    }
}

/// A value handed to a worker and back that only one thread uses at a time
/// (an operation: the loop does not touch it while a worker has it).
struct Handoff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

