/// Every failure of the core: a kind that callers can branch on (the C-ABI
/// layer maps each kind to one status code) and a message for people.
public struct EncoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, for callers to branch on. This layer declares the
    /// kinds every layer shares; each layer and feature declares its own in
    /// an extension (`extension EncoreError.Kind { static let ... }`), so
    /// this module does not change with the features. Two kinds are the
    /// same when their names are.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A caller's argument that cannot be right (checked before any work).
        public static let invalidArgument = Kind("invalidArgument")
        public static let outOfMemory = Kind("outOfMemory")
        /// A file or the system failed.
        public static let io = Kind("io")
        /// The caller cancelled (a progress callback, a flag).
        public static let cancelled = Kind("cancelled")
        /// A bug: what cannot happen did.
        public static let internalError = Kind("internalError")
        /// A value or a size past its limit.
        public static let outOfRange = Kind("outOfRange")
        public static let notFound = Kind("notFound")
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// `error` as an EncoreError: itself, or an internal error naming `what`.
    public static func wrapping(_ error: any Error, _ what: String) -> EncoreError {
        (error as? EncoreError) ?? EncoreError(.internalError, "\(what): \(error)")
    }
}
