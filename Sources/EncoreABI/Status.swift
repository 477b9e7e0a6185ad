import CEncoreShim
import CEncoreTypes
import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreStorage
import EncoreSupport
import EncoreTestResults
import EncoreTracing
import EncoreWire

/// The one place that maps core errors to C status codes.
func statusCode(_ kind: EncoreError.Kind) -> encore_status {
    switch kind {
    case .invalidArgument: return ENCORE_ERR_INVALID_ARGUMENT
    case .outOfMemory: return ENCORE_ERR_OUT_OF_MEMORY
    case .io: return ENCORE_ERR_IO
    case .cancelled: return ENCORE_ERR_CANCELLED
    case .internalError: return ENCORE_ERR_INTERNAL
    case .outOfRange: return ENCORE_ERR_OUT_OF_RANGE
    case .notFound: return ENCORE_ERR_NOT_FOUND
    case .zipNotZip: return ENCORE_ERR_ZIP_NOT_ZIP
    case .zipTruncated: return ENCORE_ERR_ZIP_TRUNCATED
    case .zipCRC: return ENCORE_ERR_ZIP_CRC
    case .zipUnsupported: return ENCORE_ERR_ZIP_UNSUPPORTED
    case .zipLimit: return ENCORE_ERR_ZIP_LIMIT
    case .zipMembers: return ENCORE_ERR_ZIP_MEMBERS
    case .zipCorrupt: return ENCORE_ERR_ZIP_CORRUPT
    case .exportHeader: return ENCORE_ERR_EXPORT_HEADER
    case .exportMalformed: return ENCORE_ERR_EXPORT_MALFORMED
    case .signatureMissing: return ENCORE_ERR_SIGNATURE_MISSING
    case .signatureUntrusted: return ENCORE_ERR_SIGNATURE_UNTRUSTED
    case .signatureInvalid: return ENCORE_ERR_SIGNATURE_INVALID
    case .signatureMalformed: return ENCORE_ERR_SIGNATURE_MALFORMED
    case .batch: return ENCORE_ERR_BATCH
    case .keyFormat: return ENCORE_ERR_KEY_FORMAT
    case .storeWrongKey: return ENCORE_ERR_STORE_WRONG_KEY
    case .storeNotDatabase: return ENCORE_ERR_STORE_NOT_DATABASE
    case .storeTooNew: return ENCORE_ERR_STORE_TOO_NEW
    case .storeFailed: return ENCORE_ERR_STORE_FAILED
    case .storeBusy: return ENCORE_ERR_STORE_BUSY
    case .storeMissing: return ENCORE_ERR_STORE_MISSING
    case .storeClosed: return ENCORE_ERR_STORE_CLOSED
    case .storeCorrupt: return ENCORE_ERR_STORE_CORRUPT
    case .network: return ENCORE_ERR_NETWORK
    case .timeout: return ENCORE_ERR_TIMEOUT
    case .tls: return ENCORE_ERR_TLS
    case .responseTooLarge: return ENCORE_ERR_RESPONSE_TOO_LARGE
    case .serverRefused: return ENCORE_ERR_SERVER_REFUSED
    case .serverUnavailable: return ENCORE_ERR_SERVER_UNAVAILABLE
    case .protocolError: return ENCORE_ERR_PROTOCOL
    case .testKey: return ENCORE_ERR_TEST_KEY
    case .notRegistered: return ENCORE_ERR_NOT_REGISTERED
    case .alreadyRegistered: return ENCORE_ERR_ALREADY_REGISTERED
    case .notPositive: return ENCORE_ERR_NOT_POSITIVE
    case .tanRefused: return ENCORE_ERR_TAN_REFUSED
    case .alreadySubmitted: return ENCORE_ERR_ALREADY_SUBMITTED
    case .testCodeHash: return ENCORE_ERR_TEST_CODE_HASH
    case .dateOfBirthMismatch: return ENCORE_ERR_DOB_MISMATCH
    case .testRedeemed: return ENCORE_ERR_TEST_REDEEMED
    case .qrNotCWA: return ENCORE_ERR_QR_NOT_CWA
    case .qrVersion: return ENCORE_ERR_QR_VERSION
    case .qrEncoding: return ENCORE_ERR_QR_ENCODING
    case .qrMalformed: return ENCORE_ERR_QR_MALFORMED
    case .qrInvalid: return ENCORE_ERR_QR_INVALID
    case .qrTooLarge: return ENCORE_ERR_QR_TOO_LARGE
    case .warningMalformed: return ENCORE_ERR_WARNING_MALFORMED
    case .checkInTimes: return ENCORE_ERR_CHECKIN_TIMES
    case .reportMAC: return ENCORE_ERR_REPORT_MAC
    case .reportInvalid: return ENCORE_ERR_REPORT_INVALID
    case .cnPublicKey: return ENCORE_ERR_CN_PUBLIC_KEY
    case .traceKeysMalformed: return ENCORE_ERR_TRACE_KEYS_MALFORMED
    case .traceKeysTooLarge: return ENCORE_ERR_TRACE_KEYS_TOO_LARGE
    case .traceKeyInvalid: return ENCORE_ERR_TRACE_KEY_INVALID
    case .cnNoMatch: return ENCORE_ERR_CN_NO_MATCH
    case .cnSecret: return ENCORE_ERR_CN_SECRET
    case .traceKeysContentHash: return ENCORE_ERR_TRACE_KEYS_CONTENT_HASH
    case .checkInQRRequired: return ENCORE_ERR_CHECKIN_QR_REQUIRED
    case .checkInQRMismatch: return ENCORE_ERR_CHECKIN_QR_MISMATCH
    case .pushToken: return ENCORE_ERR_PUSH_TOKEN
    case .pushMessage: return ENCORE_ERR_PUSH_MESSAGE
    case .pushEvent: return ENCORE_ERR_PUSH_EVENT
    case .locationInvalid: return ENCORE_ERR_LOCATION_INVALID
    case .operationState: return ENCORE_ERR_OPERATION_STATE
    case .tracingInactive: return ENCORE_ERR_TRACING_INACTIVE
    default: return ENCORE_ERR_INTERNAL  // a kind without a status is a bug (StatusTests checks each)
    }
}

/// Runs the body of a fallible C function: a thrown error becomes its
/// status code and the thread's last error message.
func guarded(_ body: () throws -> Void) -> encore_status {
    do {
        try body()
        return ENCORE_OK
    } catch let e as EncoreError {
        return fail(statusCode(e.kind), e.message)
    } catch {
        return fail(ENCORE_ERR_INTERNAL, "unexpected error: \(error)")
    }
}

func fail(_ status: encore_status, _ message: String) -> encore_status {
    enc_shim_set_error(message)
    return status
}

/// Argument checks of the C layer: they throw `.invalidArgument`.
func required<T>(_ value: T?, _ name: String) throws -> T {
    guard let value else { throw EncoreError(.invalidArgument, "\(name) must not be NULL") }
    return value
}

/// A caller's pointer + length as a buffer; NULL is allowed only with length 0.
func buffer(_ pointer: UnsafePointer<UInt8>?, _ length: Int, _ name: String) throws -> UnsafeRawBufferPointer {
    guard length >= 0 else { throw EncoreError(.invalidArgument, "\(name): length \(UInt(bitPattern: length)) is too large") }
    guard let pointer else {
        guard length == 0 else { throw EncoreError(.invalidArgument, "\(name) is NULL but its length is \(length)") }
        return UnsafeRawBufferPointer(start: nil, count: 0)
    }
    return UnsafeRawBufferPointer(start: pointer, count: length)
}

/// A caller's NUL-terminated string, which must be valid UTF-8: repairing
/// it (as String(cString:) does) would turn a path into another file's
/// name, or a name into another name.
func text(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> String {
    guard let s = String(validatingCString: try required(pointer, name)) else {
        throw EncoreError(.invalidArgument, "\(name) is not valid UTF-8")
    }
    return s
}

/// Writes an out-parameter: the pointer is checked first, the value is
/// computed next and written only when that succeeded (out-parameters are
/// written only on success).
func output<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String, _ value: () throws -> T) throws {
    let out = try required(pointer, name)
    out.pointee = try value()
}
