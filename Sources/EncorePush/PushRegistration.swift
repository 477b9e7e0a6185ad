import EncoreStorage
import EncoreSupport
import EncoreWire
import CEncoreProto
import CProtobufC
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
    /// The only `version` of the message there is (SwissCovid's apps send 1).
    public static let version: UInt64 = 1

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

    /// The one form a push token is stored, looked up and compared in:
    /// APNs tokens in lower-case hex (APNs reads either case, so a copy in
    /// another case would be a second registration of the same device);
    /// FCM tokens as they are (case matters in them). Throws like
    /// `validatePushToken`.
    public static func canonicalPushToken(_ token: String, type: PushType) throws -> String {
        try validatePushToken(token, type: type)
        guard type.isApple else { return token }
        return String(decoding: token.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// This registration with its push token in canonical form (validated).
    public func canonicalized() throws -> PushRegistration {
        try validate()
        guard !pushToken.isEmpty else { return self }
        return PushRegistration(pushToken: try Self.canonicalPushToken(pushToken, type: pushType), pushType: pushType, instanceToken: instanceToken)
    }

    /// NUL and the other C0 controls and DEL: refused in every string with
    /// a message of their own (a NUL once cut tokens short).
    static func refuseControlCharacters(_ u: [UInt8], _ what: String) throws {
        if let bad = u.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw EncoreError(.pushToken, "\(what) contains a control character (0x\(Hex.encode([bad])))")
        }
    }

    public static func validatePushToken(_ token: String, type: PushType) throws {
        let u = Array(token.utf8)
        try refuseControlCharacters(u, "the push token")
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
        try refuseControlCharacters(u, "the app-instance token")
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
    /// not a PushRegistration (or too large, of a version other than 1, or
    /// of an unknown push type), `.pushToken` when a token has the wrong
    /// form or holds a control character. The fields are walked on the
    /// wire (`ProtoWire`), so that every string is read with its length: a
    /// NUL inside a string is a NUL, never its end. Unknown fields are
    /// skipped (proto3); a known field of the wrong wire type is refused.
    public init(decoding body: [UInt8]) throws {
        guard body.count <= Self.maxMessageBytes else {
            throw EncoreError(.pushMessage, "a push registration is at most \(Self.maxMessageBytes) bytes (this one is \(body.count))")
        }
        var version: UInt64 = 0, type: UInt64 = 0
        var token: [UInt8] = [], device: [UInt8] = []
        do {
            try body.withUnsafeBytes { raw in
                var wire = ProtoWire(raw)
                while let f = try wire.next() {
                    switch (f.number, f.wireType) {
                    case (1, .varint): version = f.value
                    case (3, .varint): type = f.value
                    case (2, .lengthDelimited): token = Array(raw[f.payload])
                    case (4, .lengthDelimited): device = Array(raw[f.payload])
                    case (1 ... 4, _): throw EncoreError(.pushMessage, "field \(f.number) has the wrong wire type")
                    default: break
                    }
                }
            }
        } catch let e as EncoreError where e.kind == .exportMalformed {
            throw EncoreError(.pushMessage, "the body is not a PushRegistration protobuf")
        }
        guard version == Self.version else {
            throw EncoreError(.pushMessage, "unsupported PushRegistration version \(version) (this registry reads version \(Self.version))")
        }
        guard type <= UInt64(Int32.max), let pushType = PushType(wireValue: Int32(type)) else {
            throw EncoreError(.pushMessage, "unknown push type \(type)")
        }
        func text(_ bytes: [UInt8], _ what: String) throws -> String {
            guard let s = String(validating: bytes, as: UTF8.self) else { throw EncoreError(.pushMessage, "\(what) is not UTF-8") }
            return s
        }
        self.init(pushToken: try text(token, "the push token"), pushType: pushType, instanceToken: try text(device, "the device id"))
        try validate()
    }
}
