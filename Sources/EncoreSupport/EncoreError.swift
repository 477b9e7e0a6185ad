/// Every failure of the core: a kind that callers can branch on (the C-ABI
/// layer maps each kind to one status code) and a message for people.
public struct EncoreError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable, CaseIterable {
        case invalidArgument, outOfMemory, io, cancelled, internalError, outOfRange, notFound
        case zipNotZip, zipTruncated, zipCRC, zipUnsupported, zipLimit, zipMembers, zipCorrupt
        case exportHeader, exportMalformed
        case signatureMissing, signatureUntrusted, signatureInvalid, signatureMalformed, batch, keyFormat
        case storeWrongKey, storeNotDatabase, storeTooNew, storeFailed, storeBusy, storeMissing
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
