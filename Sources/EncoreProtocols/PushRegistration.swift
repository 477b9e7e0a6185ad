import CEncoreProto
import CProtobufC
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where a push token comes from: APNs (production or sandbox) or FCM.
public enum PushType: String, Sendable, CaseIterable {
    case ios, iosSandbox = "ios-sandbox", android

    /// SwissCovid's enum (IOS 0, AND 1, IOD 2).
    public var wireValue: Int32 {
        switch self {
        case .ios: return 0
        case .android: return 1
        case .iosSandbox: return 2
        }
    }

    public init?(wireValue: Int32) {
        switch wireValue {
        case 0: self = .ios
        case 1: self = .android
        case 2: self = .iosSandbox
        default: return nil
        }
    }

    public var isApple: Bool { self != .android }
}

/// One registration as SwissCovid's `POST /v3/register` carries it
/// (proto/push.proto): an empty push token deregisters. Both sides use it:
/// the client encodes, the registry decodes; both check the same rules.
public struct PushRegistration: Sendable, Equatable {
    /// APNs device tokens are 32 bytes, written as 64 hex digits.
    public static let apnsTokenLength = 64
    /// FCM registration tokens: at most 4 KB of URL-safe text.
    public static let maxFCMTokenLength = 4096
    /// App-instance tokens: 128 bits at least (32 hex digits), 128 characters at most.
    public static let instanceTokenLengths = 32 ... 128
    /// Larger bodies are refused before they are parsed.
    public static let maxMessageBytes = 8192

    public var pushToken: String
    public var pushType: PushType
    /// The app-instance token (SwissCovid's deviceId).
    public var instanceToken: String

    public var isDeregistration: Bool { pushToken.isEmpty }

    public init(pushToken: String, pushType: PushType, instanceToken: String) {
        self.pushToken = pushToken
        self.pushType = pushType
        self.instanceToken = instanceToken
    }

    /// Throws `.pushToken` unless both tokens have the form of their kind
    /// (an empty push token, a deregistration, passes).
    public func validate() throws {
        try Self.validateInstanceToken(instanceToken)
        if !pushToken.isEmpty { try Self.validatePushToken(pushToken, type: pushType) }
    }

    public static func validatePushToken(_ token: String, type: PushType) throws {
        let u = Array(token.utf8)
        if type.isApple {
            guard u.count == apnsTokenLength, u.allSatisfy({ Hex.nibble($0) != nil }) else {
                throw EncoreError(.pushToken, "an APNs push token is \(apnsTokenLength) hex digits (this one is \(u.count) characters\(u.allSatisfy { Hex.nibble($0) != nil } ? "" : ", not all hex"))")
            }
        } else {
            guard (1 ... maxFCMTokenLength).contains(u.count), u.allSatisfy(isURLSafe) else {
                throw EncoreError(.pushToken, "an FCM push token is 1 to \(maxFCMTokenLength) characters of URL-safe text (letters, digits, - _ : .)")
            }
        }
    }

    public static func validateInstanceToken(_ token: String) throws {
        let u = Array(token.utf8)
        guard instanceTokenLengths.contains(u.count), u.allSatisfy(isURLSafe) else {
            throw EncoreError(.pushToken, "an app-instance token is \(instanceTokenLengths.lowerBound) to \(instanceTokenLengths.upperBound) characters of URL-safe text")
        }
    }

    static func isURLSafe(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// The protobuf bytes (version 1).
    public func encoded() throws -> [UInt8] {
        try validate()
        guard let token = strdup(pushToken), let device = strdup(instanceToken) else {
            throw EncoreError(.outOfMemory, "cannot build the push registration")
        }
        defer {
            free(token)
            free(device)
        }
        var m = Pushreg__PushRegistration()
        pushreg__push_registration__init(&m)
        m.version = 1
        m.pushtoken = token
        m.pushtype = Pushreg__PushType(rawValue: UInt32(pushType.wireValue))
        m.deviceid = device
        let size = pushreg__push_registration__get_packed_size(&m)
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBufferPointer { pushreg__push_registration__pack(&m, $0.baseAddress) }
        guard written == size else { throw EncoreError(.internalError, "protobuf-c packed \(written) of \(size) bytes") }
        return out
    }

    /// Reads and checks a body as clients send it: `.pushMessage` when it is
    /// not a PushRegistration (or too large, or of an unknown push type),
    /// `.pushToken` when a token has the wrong form.
    public init(decoding body: [UInt8]) throws {
        guard body.count <= Self.maxMessageBytes else {
            throw EncoreError(.pushMessage, "a push registration is at most \(Self.maxMessageBytes) bytes (this one is \(body.count))")
        }
        guard let m = body.withUnsafeBufferPointer({ pushreg__push_registration__unpack(nil, $0.count, $0.baseAddress) }) else {
            throw EncoreError(.pushMessage, "the body is not a PushRegistration protobuf")
        }
        defer { pushreg__push_registration__free_unpacked(m, nil) }
        let raw = Int32(bitPattern: m.pointee.pushtype.rawValue)
        guard let type = PushType(wireValue: raw) else { throw EncoreError(.pushMessage, "unknown push type \(raw)") }
        func text(_ p: UnsafeMutablePointer<CChar>?) throws -> String {
            guard let p else { return "" }
            let bytes = UnsafeRawBufferPointer(start: p, count: strlen(p))
            guard let s = String(validating: bytes, as: UTF8.self) else { throw EncoreError(.pushMessage, "a token is not UTF-8") }
            return s
        }
        self.init(pushToken: try text(m.pointee.pushtoken), pushType: type, instanceToken: try text(m.pointee.deviceid))
        try validate()
    }
}
