import CEncoreProto
import CProtobufC
import EncoreSupport
import EncoreWire

/// One published trace key: the secret key of one hour's identity at one
/// venue, with the associated data only the venue's visitors can open.
public struct CrowdNotifierTraceKey: Sendable, Equatable {
    /// The two layouts of ProblematicEvent in use (the wire type of field 5
    /// tells them apart): SwissCovid's (4 day, 5 encryptedAssociatedData,
    /// 6 cipherTextNonce) and NotifyMe's / SDK 3.0's (4 startTime ms,
    /// 5 endTime ms, 6 encryptedAssociatedData, 7 cipherTextNonce).
    public enum Layout: String, Sendable { case swissCovid = "swisscovid", notifyMe = "notifyme" }

    public var layout: Layout
    /// Its place in the body (0-based, counting every event).
    public var item: Int
    public var version: Int64
    public var identity: [UInt8]
    /// sk_id = H1(identity)^msk, a G1 point (48 bytes), validated when used.
    public var secretKey: [UInt8]
    /// The UTC midnight of the hour's day (seconds).
    public var day: Int64
    /// NotifyMe's layout carries the times itself (seconds here).
    public var start: Int64?
    public var end: Int64?
    public var encryptedAssociatedData: [UInt8]
    public var nonce: [UInt8]

    public init(layout: Layout = .swissCovid, item: Int = 0, version: Int64 = 4, identity: [UInt8], secretKey: [UInt8], day: Int64,
                start: Int64? = nil, end: Int64? = nil, encryptedAssociatedData: [UInt8], nonce: [UInt8]) {
        self.layout = layout
        self.item = item
        self.version = version
        self.identity = identity
        self.secretKey = secretKey
        self.day = day
        self.start = start
        self.end = end
        self.encryptedAssociatedData = encryptedAssociatedData
        self.nonce = nonce
    }
}

/// A ProblematicEventWrapper as read: the keys that have the right shape,
/// and how many events did not (skipped and counted, never fatal).
public struct CrowdNotifierTraceKeyBatch: Sendable, Equatable {
    public var version: Int64 = 0
    public var events = 0
    public var keys: [CrowdNotifierTraceKey] = []
    /// Events that do not decode or have fields of the wrong length or type.
    public var skipped = 0

    public init() {}
}

/// Reads the body of `GET /v3/traceKeys` (a ProblematicEventWrapper) or a
/// file holding one. Pure: bytes in. The wrapper is walked field by field;
/// each event's fields are read by number and wire type, so both layouts
/// of ProblematicEvent are accepted.
public enum CrowdNotifierTraceKeys {
    /// Limits against hostile bodies (SwissCovid publishes a handful a day).
    public static let maxBodyBytes = 64 << 20
    static let maxEvents = 100_000

    public static func parse(_ body: [UInt8]) throws -> CrowdNotifierTraceKeyBatch {
        try body.withUnsafeBytes { try parse(body: $0) }
    }

    public static func parse(body: UnsafeRawBufferPointer) throws -> CrowdNotifierTraceKeyBatch {
        guard body.count <= maxBodyBytes else {
            throw EncoreError(.traceKeysTooLarge, "the trace keys are \(body.count) bytes; at most \(maxBodyBytes) are accepted")
        }
        var out = CrowdNotifierTraceKeyBatch()
        var wire = ProtoWire(body)
        do {
            while let f = try wire.next() {
                switch (f.number, f.wireType) {
                case (1, .varint): out.version = Int64(truncatingIfNeeded: f.value)
                case (2, .lengthDelimited):
                    guard out.events < maxEvents else {
                        throw EncoreError(.traceKeysTooLarge, "the trace keys hold more than \(maxEvents) events")
                    }
                    if let key = event(UnsafeRawBufferPointer(rebasing: body[f.payload]), item: out.events) {
                        out.keys.append(key)
                    } else {
                        out.skipped += 1
                    }
                    out.events += 1
                case (1 ... 2, _):
                    throw EncoreError(.traceKeysMalformed, "trace keys: field \(f.number) of the ProblematicEventWrapper has the wrong wire type")
                default: continue
                }
            }
        } catch let e as EncoreError where e.kind == .exportMalformed {
            throw EncoreError(.traceKeysMalformed, "the trace keys are not a ProblematicEventWrapper: " + e.message.dropFirst(e.message.hasPrefix("export.bin: ") ? 12 : 0))
        }
        return out
    }

    /// One ProblematicEvent, or nil when it cannot be used.
    static func event(_ bytes: UnsafeRawBufferPointer, item: Int) -> CrowdNotifierTraceKey? {
        var wire = ProtoWire(bytes)
        var version: Int64 = 0, identity: [UInt8] = [], sk: [UInt8] = []
        var f4: UInt64?, f5Varint: UInt64?, f5Bytes: [UInt8]?, f6: [UInt8]?, f7: [UInt8]?
        do {
            while let f = try wire.next() {
                let payload = { Array(UnsafeRawBufferPointer(rebasing: bytes[f.payload])) }
                switch (f.number, f.wireType) {
                case (1, .varint): version = Int64(truncatingIfNeeded: f.value)
                case (2, .lengthDelimited): identity = payload()
                case (3, .lengthDelimited): sk = payload()
                case (4, .varint): f4 = f.value
                case (5, .varint): f5Varint = f.value
                case (5, .lengthDelimited): f5Bytes = payload()
                case (6, .lengthDelimited): f6 = payload()
                case (7, .lengthDelimited): f7 = payload()
                case (1 ... 7, _): return nil
                default: continue
                }
            }
        } catch {
            return nil
        }
        guard identity.count == 32, sk.count == BLS.g1Bytes else { return nil }
        if f5Varint != nil || f7 != nil {
            // NotifyMe: times in milliseconds; the day is the start's.
            guard f5Bytes == nil, let startMs = f4, let endMs = f5Varint, startMs <= endMs, endMs / 1000 <= UInt64(Int64.max),
                  let ead = f6, let nonce = f7, nonce.count == CrowdNotifierCrypto.nonceBytes else { return nil }
            let start = Int64(startMs / 1000), end = Int64(endMs / 1000)
            return CrowdNotifierTraceKey(layout: .notifyMe, item: item, version: version, identity: identity, secretKey: sk,
                                         day: UnixTime.utcMidnight(start), start: start, end: end, encryptedAssociatedData: ead, nonce: nonce)
        }
        guard let day = f4, day <= UInt64(Int64.max), let ead = f5Bytes, let nonce = f6, nonce.count == CrowdNotifierCrypto.nonceBytes else { return nil }
        return CrowdNotifierTraceKey(layout: .swissCovid, item: item, version: version, identity: identity, secretKey: sk,
                                     day: UnixTime.utcMidnight(Int64(day)), encryptedAssociatedData: ead, nonce: nonce)
    }

    /// The ProblematicEventWrapper (version 3) of keys, each in its layout,
    /// every field set (zeros and empty bytes included, as encore has
    /// always written them).
    public static func encode(_ keys: [CrowdNotifierTraceKey]) throws -> [UInt8] {
        let b = try ProtoBuilder(capacity: 256 + min(keys.count, 4096) * 320)
        let w = try b.message(cnv3__problematic_event_wrapper__init)
        ProtoBuilder.set(&w.pointee.version, &w.pointee.has_version, 3)
        let events = try keys.map { k -> UnsafeMutablePointer<Cnv3__ProblematicEvent> in
            switch k.layout {
            case .swissCovid:
                let e = try b.message(cnv3__problematic_event__init)
                try setShared(e, k, b)
                ProtoBuilder.set(&e.pointee.day, &e.pointee.has_day, k.day)
                return e
            case .notifyMe:
                let e = try b.message(cnv3__notify_me_problematic_event__init)
                try setShared(e, k, b)
                ProtoBuilder.set(&e.pointee.starttime, &e.pointee.has_starttime, (k.start ?? k.day).multipliedReportingOverflow(by: 1000).partialValue)
                ProtoBuilder.set(&e.pointee.endtime, &e.pointee.has_endtime, (k.end ?? k.day).multipliedReportingOverflow(by: 1000).partialValue)
                // protobuf-c packs each listed message by its own
                // descriptor: NotifyMe's layout stands in the list as is.
                return UnsafeMutablePointer(OpaquePointer(e))
            }
        }
        w.pointee.n_events = events.count
        w.pointee.events = try b.list(events)
        return ProtoBuilder.pack(w)
    }

    /// Sets the fields both layouts carry under the same numbers.
    private static func setShared<M: ProblematicEventFields>(_ e: UnsafeMutablePointer<M>, _ k: CrowdNotifierTraceKey, _ b: ProtoBuilder) throws {
        ProtoBuilder.set(&e.pointee.version, &e.pointee.has_version, Int32(truncatingIfNeeded: k.version))
        ProtoBuilder.set(&e.pointee.identity, &e.pointee.has_identity, try b.bytes(k.identity))
        ProtoBuilder.set(&e.pointee.secretkeyforidentity, &e.pointee.has_secretkeyforidentity, try b.bytes(k.secretKey))
        ProtoBuilder.set(&e.pointee.encryptedassociateddata, &e.pointee.has_encryptedassociateddata, try b.bytes(k.encryptedAssociatedData))
        ProtoBuilder.set(&e.pointee.ciphertextnonce, &e.pointee.has_ciphertextnonce, try b.bytes(k.nonce))
    }
}

/// The fields protobuf-c generates alike for both layouts of a problematic
/// event, so that one function sets them in either.
private protocol ProblematicEventFields {
    var version: Int32 { get set }
    var identity: ProtobufCBinaryData { get set }
    var secretkeyforidentity: ProtobufCBinaryData { get set }
    var encryptedassociateddata: ProtobufCBinaryData { get set }
    var ciphertextnonce: ProtobufCBinaryData { get set }
    var has_version: protobuf_c_boolean { get set }
    var has_identity: protobuf_c_boolean { get set }
    var has_secretkeyforidentity: protobuf_c_boolean { get set }
    var has_encryptedassociateddata: protobuf_c_boolean { get set }
    var has_ciphertextnonce: protobuf_c_boolean { get set }
}

extension Cnv3__ProblematicEvent: ProblematicEventFields {}
extension Cnv3__NotifyMeProblematicEvent: ProblematicEventFields {}
