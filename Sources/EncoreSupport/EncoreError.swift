/// Every failure of the core: a kind that callers can branch on (the C-ABI
/// layer maps each kind to one status code) and a message for people.
public struct EncoreError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable, CaseIterable {
        case invalidArgument, outOfMemory, io, cancelled, internalError, outOfRange, notFound
        case zipNotZip, zipTruncated, zipCRC, zipUnsupported, zipLimit, zipMembers, zipCorrupt
        case exportHeader, exportMalformed
        case signatureMissing, signatureUntrusted, signatureInvalid, signatureMalformed, batch, keyFormat
        case storeWrongKey, storeNotDatabase, storeTooNew, storeFailed, storeBusy, storeMissing
        /// No answer from a server: no connection, a dropped or broken transfer.
        case network, timeout, tls, responseTooLarge
        /// The server answered, refusing (4xx), or cannot now (5xx, 429), or
        /// with something encore cannot read (a 3xx, a malformed body).
        case serverRefused, serverUnavailable, protocolError
        /// Test results and submission: a QR code, GUID, teleTAN or date of
        /// birth that cannot be right (refused before any request); no test
        /// registered; one registered already; not positive; the TAN refused
        /// or expired; submitted already.
        case testKey, notRegistered, alreadyRegistered, notPositive, tanRefused, alreadySubmitted
        /// A rapid test QR code whose hash does not match its content; the
        /// verification server's 403: the result under the date-of-birth
        /// key differs from the test's; a test the server reports redeemed
        /// when it is registered (discarded, as the apps do).
        case testCodeHash, dateOfBirthMismatch, testRedeemed
        /// Check-ins: a QR code that is not a CWA event code (scheme, host,
        /// path), of an unknown version, not base64url, not a QRCodePayload,
        /// with content breaking the rules (text over 100 characters, an end
        /// before the start), or too large; a trace warning package whose
        /// export.bin is not a TraceWarningPackage; check-in times that
        /// cannot be (an end before the start, before 1970); a protected
        /// report whose MAC does not verify, or that is otherwise unusable.
        case qrNotCWA, qrVersion, qrEncoding, qrMalformed, qrInvalid, qrTooLarge, warningMalformed, checkInTimes, reportMAC, reportInvalid
        /// CrowdNotifier (SwissCovid, NotifyMe): a QR code whose venue public
        /// key is not a usable G2 point; a trace-key body that is not a
        /// ProblematicEventWrapper, or larger than allowed; one trace key
        /// unusable (a secret key off the curve, outside the subgroup, the
        /// identity, fields of the wrong length); a ciphertext the key does
        /// not open (or whose c1 re-check fails); a venue master secret that
        /// is not one; a body whose SHA-256 is not its signed content hash.
        case cnPublicKey, traceKeysMalformed, traceKeysTooLarge, traceKeyInvalid, cnNoMatch, cnSecret, traceKeysContentHash
        /// Silent pushes: a push token (or app-instance token) of the wrong
        /// form for its type; a push registration message that cannot be
        /// read; an event name the rule does not know.
        case pushToken, pushMessage, pushEvent
        /// The organizer side: a location to create that breaks the app's
        /// rules (type, description, address, times, default length).
        case locationInvalid
        /// A network operation driven out of turn: an answer for a request
        /// it is not waiting for, a result asked before it finished.
        case operationState
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
