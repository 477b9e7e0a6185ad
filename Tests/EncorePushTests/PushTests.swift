import EncoreHTTP
import EncorePush
import EncoreSupport
import EncoreTestSupport
import Testing

/// Silent pushes: the registration rule of push.md row by row, the
/// PushRegistration codec both ways and on hostile bodies, the requests.
@Suite struct PushTests {
    static let now: Int64 = 1_795_500_000
    static let day: Int64 = 86_400

    func state(en: Bool = false, checkIns: Bool = true, isolated: Bool = false, registeredAt: Int64? = nil) -> PushRule.State {
        PushRule.State(enActive: en, hasCheckIns: checkIns, isolated: isolated, registeredAt: registeredAt)
    }

    func action(_ s: PushRule.State, _ e: PushRule.Event, at t: Int64 = now) -> PushRule.Action {
        PushRule.decide(s, e, now: t).action
    }

    @Test func checkOutRegistersWithENOffWhenNotRegistered() {
        #expect(action(state(), .checkout) == .register)
        #expect(action(state(isolated: true), .checkout) == .register)
        #expect(action(state(en: true), .checkout) == .none)
        #expect(action(state(registeredAt: Self.now - 20 * Self.day), .checkout) == .none)
    }

    @Test func turningENOffRegistersWithCheckInsUnlessRegistered() {
        #expect(action(state(), .enOff) == .register)
        #expect(action(state(checkIns: false), .enOff) == .none)
        #expect(action(state(registeredAt: Self.now), .enOff) == .none)
    }

    @Test func appStartRegistersAndRenewsAfter14Days() {
        #expect(action(state(), .appStart) == .register)
        #expect(action(state(checkIns: false), .appStart) == .none)
        #expect(action(state(isolated: true), .appStart) == .none)
        #expect(action(state(registeredAt: Self.now - 14 * Self.day), .appStart) == .none)
        #expect(action(state(registeredAt: Self.now - 14 * Self.day - 1), .appStart) == .register)
        #expect(action(state(isolated: true, registeredAt: Self.now - 30 * Self.day), .appStart) == .none)
        // A registration time far off (a host's bad clock) cannot overflow.
        #expect(action(state(registeredAt: .min), .appStart, at: .max) == .none)
        #expect(action(state(registeredAt: 0), .appStart, at: .max) == .register)
    }

    @Test func enOnDeregisters() {
        #expect(action(state(en: true, registeredAt: Self.now), .enOn) == .deregister)
        #expect(action(state(en: true), .enOn) == .none)
        #expect(action(state(en: true, registeredAt: Self.now), .appStart) == .deregister)
        #expect(action(state(en: true), .appStart) == .none)
    }

    @Test func aNewPushTokenRegistersAgainOnlyWhenRegistered() {
        #expect(action(state(registeredAt: Self.now), .tokenChanged) == .register)
        #expect(action(state(), .tokenChanged) == .none)
        #expect(action(state(en: true, registeredAt: Self.now), .tokenChanged) == .register)
    }

    static let apns = String(repeating: "ab", count: 32)
    static let instance = String(repeating: "0f", count: 32)

    @Test func theMessageRoundTripsForEveryType() throws {
        for type in PushType.allCases {
            let token = type.isApple ? Self.apns : "fcm:APA91b_x-y.z"
            let m = PushRegistration(pushToken: token, pushType: type, instanceToken: Self.instance)
            #expect(try PushRegistration(decoding: m.encoded()) == m)
        }
        let deregistration = PushRegistration(pushToken: "", pushType: .ios, instanceToken: Self.instance)
        #expect(try PushRegistration(decoding: deregistration.encoded()).isDeregistration)
    }

    @Test func hostileBodiesGiveDistinctErrors() throws {
        func kind(_ body: [UInt8]) -> EncoreError.Kind? {
            do { _ = try PushRegistration(decoding: body) } catch let e as EncoreError { return e.kind } catch { return nil }
            return nil
        }
        #expect(kind([0xFF, 0xFF, 0xFF]) == .pushMessage)
        #expect(kind([UInt8](repeating: 0, count: PushRegistration.maxMessageBytes + 1)) == .pushMessage)
        // Push type 7 (unknown): field 3, varint 7.
        let good = try PushRegistration(pushToken: Self.apns, pushType: .ios, instanceToken: Self.instance).encoded()
        #expect(kind(good + [0x18, 0x07]) == .pushMessage)
        // A body (version 1) with a 2-character push token and no instance token.
        #expect(kind([0x08, 0x01, 0x12, 0x02, 0x61, 0x62]) == .pushToken)
        #expect(throws: EncoreError.self) { try PushRegistration(pushToken: Self.apns, pushType: .ios, instanceToken: "short").encoded() }
        let notHex = String(repeating: "zz", count: 32)
        #expect(throws: EncoreError.self) { try PushRegistration.validatePushToken(notHex, type: .ios) }
        #expect(throws: EncoreError.self) { try PushRegistration.validatePushToken(String(repeating: "a", count: 4097), type: .android) }
        #expect(throws: EncoreError.self) { try PushRegistration.validatePushToken("a/b", type: .android) }
    }

    /// Strings are read with their length: a NUL does not end them (it
    /// once did, through strlen), and control characters are refused.
    @Test func stringsAreReadWithTheirLength() throws {
        func body(version: UInt8 = 1, token: [UInt8], device: [UInt8]) -> [UInt8] {
            func field(_ n: UInt8, _ v: [UInt8]) -> [UInt8] {
                var length: [UInt8] = []
                var l = v.count
                repeat { length.append(UInt8(l & 0x7F) | (l > 0x7F ? 0x80 : 0)); l >>= 7 } while l > 0
                return [n << 3 | 2] + length + v
            }
            return [0x08, version] + field(2, token) + field(4, device)
        }
        func kind(_ b: [UInt8]) -> EncoreError.Kind? {
            do { _ = try PushRegistration(decoding: b) } catch let e as EncoreError { return e.kind } catch { return nil }
            return nil
        }
        let token = Array(Self.apns.utf8), device = Array(Self.instance.utf8)
        #expect(kind(body(token: token, device: device)) == nil)
        #expect(kind(body(token: token + [0] + Array("junk".utf8), device: device)) == .pushToken)
        #expect(kind(body(token: token, device: Array(device[0 ..< 40]) + [0] + [UInt8](repeating: 0x78, count: 3000))) == .pushToken)
        #expect(kind(body(token: [0x01] + Array("fcm".utf8), device: device)) == .pushToken)
        #expect(kind(body(token: token, device: device + [0x7F])) == .pushToken)
        #expect(kind(body(token: token, device: [0xC3, 0x28] + device)) == .pushMessage)   // not UTF-8
        #expect(kind(body(version: 0, token: token, device: device)) == .pushMessage)
        #expect(kind(body(version: 99, token: token, device: device)) == .pushMessage)
        #expect(kind(body(token: token, device: device) + [0x10, 0x01]) == .pushMessage)  // field 2 as a varint
        // Unknown fields are skipped (proto3).
        #expect(kind(body(token: token, device: device) + [0x28, 0x05]) == nil)
    }

    @Test func apnsTokensHaveOneCanonicalForm() throws {
        let upper = Self.apns.uppercased()
        #expect(try PushRegistration.canonicalPushToken(upper, type: .ios) == Self.apns)
        #expect(try PushRegistration.canonicalPushToken(upper, type: .iosSandbox) == Self.apns)
        #expect(try PushRegistration.canonicalPushToken("Fcm:AbC", type: .android) == "Fcm:AbC")
        let m = try PushRegistration(pushToken: upper, pushType: .ios, instanceToken: Self.instance).canonicalized()
        #expect(m.pushToken == Self.apns)
        #expect(throws: EncoreError.self) { try PushRegistration.canonicalPushToken(String(repeating: "G", count: 64), type: .ios) }
    }

    @Test func theRequestsOfBothAPIs() throws {
        let v3 = try PushProtocol.request(base: "https://push.example/", api: .swisscovid, instanceToken: Self.instance, push: (Self.apns, .iosSandbox))
        #expect(v3.method == "POST" && v3.url == "https://push.example/v3/register")
        #expect(try PushRegistration(decoding: v3.body) == PushRegistration(pushToken: Self.apns, pushType: .iosSandbox, instanceToken: Self.instance))
        let put = try PushProtocol.request(base: "https://push.example", api: .registry, instanceToken: Self.instance, push: (Self.apns, .ios))
        #expect(put.method == "PUT" && put.headers.contains(HTTPHeader("Authorization", "Bearer " + Self.instance)))
        let delete = try PushProtocol.request(base: "https://push.example", api: .registry, instanceToken: Self.instance, push: nil)
        #expect(delete.method == "DELETE" && delete.body.isEmpty)
        #expect(throws: EncoreError.self) { try PushProtocol.request(base: "http://push.example", api: .registry, instanceToken: Self.instance, push: nil) }
        #expect(throws: Never.self) { try PushProtocol.check(HTTPResponse(status: 204), deregistration: true) }
        #expect(throws: EncoreError.self) { try PushProtocol.check(HTTPResponse(status: 503), deregistration: false) }
    }
}
