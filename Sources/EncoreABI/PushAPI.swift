// encore.h section: push, part 1
import CEncoreTypes
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTracing

/// Fills *options with the defaults (3 attempts, 1 s before the first
/// retry) for a struct of `struct_size` bytes.
@c public func encore_push_options_init(_ options: UnsafeMutablePointer<encore_push_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        o.attempts = 3
        o.retry_delay_ms = 1000
    }
}

func pushAPI(_ api: Int32, _ name: String) throws -> PushProtocol.API {
    let apis: [Int32: PushProtocol.API] = [ENCORE_PUSH_API_SWISSCOVID: .swisscovid, ENCORE_PUSH_API_REGISTRY: .registry]
    guard let value = apis[api] else { throw EncoreError(.invalidArgument, "\(name) must be ENCORE_PUSH_API_*, not \(api)") }
    return value
}

func pushRetry(_ pointer: UnsafePointer<encore_push_options>?) throws -> PushRetry {
    guard let pointer else { return PushRetry() }
    let o = try checkedStruct(pointer, "encore_push_options_init")
    return PushRetry(attempts: Int(o.attempts), delayMilliseconds: Int(o.retry_delay_ms))
}

/// Records the state the rule decides on: whether the user has Exposure
/// Notifications on (`exposure_notifications`, stored as a tracing event)
/// and is in isolation; 0 or 1, or ENCORE_PUSH_KEEP to leave one as it is.
/// A change of Exposure Notifications is recorded at the client's time.
@c public func encore_push_set_state(_ client: encore_client_ptr?, _ exposure_notifications: Int32, _ isolated: Int32) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        let service = PushService(store: s)
        for (v, name) in [(exposure_notifications, "exposure_notifications"), (isolated, "isolated")] where !(-1 ... 1).contains(v) {
            throw EncoreError(.invalidArgument, "\(name) must be 0, 1 or ENCORE_PUSH_KEEP, not \(v)")
        }
        if exposure_notifications != ENCORE_PUSH_KEEP { try service.store.setExposureNotifications(exposure_notifications == 1, now: now) }
        if isolated != ENCORE_PUSH_KEEP { try service.setIsolated(isolated == 1) }
    }
}

/// What to do on `event` (ENCORE_PUSH_EVENT_*) at the client's time, by the rule of
/// ../shared/spec/push.md on the store's state: decision->action is
/// ENCORE_PUSH_REGISTER, _DEREGISTER or _NONE. `reason` (may be NULL)
/// receives why, in words, for encore_bytes_free(). No request is made.
/// ENCORE_ERR_PUSH_EVENT for an unknown event.
@c public func encore_push_decide(_ client: encore_client_ptr?, _ event: Int32, _ decision: UnsafeMutablePointer<encore_push_decision>?, _ reason: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        let service = PushService(store: s)
        let events: [Int32: PushRule.Event] = [ENCORE_PUSH_EVENT_APP_START: .appStart, ENCORE_PUSH_EVENT_CHECKOUT: .checkout, ENCORE_PUSH_EVENT_EN_ON: .enOn,
                                               ENCORE_PUSH_EVENT_EN_OFF: .enOff, ENCORE_PUSH_EVENT_TOKEN_CHANGED: .tokenChanged]
        guard let e = events[event] else { throw EncoreError(.pushEvent, "event must be ENCORE_PUSH_EVENT_*, not \(event)") }
        let d = try service.decide(e, now: now)
        var out = encore_push_decision()
        out.struct_size = UInt32(MemoryLayout<encore_push_decision>.size)
        out.action = [PushRule.Action.none: ENCORE_PUSH_NONE, .register: ENCORE_PUSH_REGISTER, .deregister: ENCORE_PUSH_DEREGISTER][d.action] ?? ENCORE_PUSH_NONE
        let text = reason == nil ? nil : try LibraryBytes.make(d.reason)
        do {
            try writeOutput(out, to: decision, "decision")
        } catch {
            if let data = text?.data { LibraryBytes.release(data) }
            throw error
        }
        if let reason, let text { reason.pointee = text }
    }
}

func pushType(_ t: Int32) throws -> PushType {
    let types: [Int32: PushType] = [ENCORE_PUSH_TYPE_IOS: .ios, ENCORE_PUSH_TYPE_ANDROID: .android, ENCORE_PUSH_TYPE_IOS_SANDBOX: .iosSandbox]
    guard let type = types[t] else { throw EncoreError(.invalidArgument, "type must be ENCORE_PUSH_TYPE_*, not \(t)") }
    return type
}

/// Registers `push_token` (of ENCORE_PUSH_TYPE_* `type`) with the client's
/// push registry (encore_client_options.push_url and .push_api), with the
/// app-instance token (made on first use, kept in the store, sent in no
/// other request); also to renew, or after the OS gave a new token. The
/// registration is stored only when the server said yes. `options` may be
/// NULL (the defaults). ENCORE_ERR_PUSH_TOKEN for a token of the wrong form
/// (APNs: 64 hex digits; FCM: 1..4096 URL-safe characters), before any
/// request; the transport's statuses otherwise. The blocking form of
/// encore_push_register_start() + encore_operation_run().
@c public func encore_push_register_run(_ client: encore_client_ptr?, _ push_token: UnsafePointer<CChar>?, _ type: Int32, _ options: UnsafePointer<encore_push_options>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let now = try c.now()
        try runOperation(try pushRegisterOperation(c, push_token, type, options, now), transport: c.transport, now: now)
    }
}

/// The registration of encore_push_register_run() as an operation the host
/// drives with its own I/O (encore_operation_next(), _feed_answer(), ...);
/// its result JSON is encore_push_get_status_json()'s. Release *out with
/// encore_operation_free(). The token is checked now, before any request.
@c public func encore_push_register_start(_ client: encore_client_ptr?, _ push_token: UnsafePointer<CChar>?, _ type: Int32, _ options: UnsafePointer<encore_push_options>?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        _ = try required(out, "out")
        let op = try pushRegisterOperation(c, push_token, type, options, try c.now())
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

func pushRegisterOperation(_ client: EncoreClient, _ push_token: UnsafePointer<CChar>?, _ type: Int32,
                           _ options: UnsafePointer<encore_push_options>?, _ now: Int64) throws -> RequestScript<PushStatus> {
    let service = PushService(store: client.store)
    return try service.registerOperation(server: try client.pushURL(), api: client.servers.pushAPI, pushToken: try text(push_token, "push_token"),
                                         type: try pushType(type), retry: try pushRetry(options), now: now)
}

/// Deregisters (an empty push token, or DELETE, with the app-instance
/// token) from the server and API of the stored registration, or when none
/// is stored from the client's push registry; the registration is
/// forgotten once the server said yes. ENCORE_ERR_INVALID_ARGUMENT when
/// nothing is registered and the client has no push registry. The blocking
/// form of encore_push_deregister_start() + encore_operation_run().
@c public func encore_push_deregister_run(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_push_options>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        try runOperation(try pushDeregisterOperation(c, options), transport: c.transport, now: try c.now())
    }
}

/// The deregistration of encore_push_deregister_run() as an operation the host
/// drives. Release *out with encore_operation_free().
@c public func encore_push_deregister_start(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_push_options>?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        _ = try required(out, "out")
        let op = try pushDeregisterOperation(c, options)
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

func pushDeregisterOperation(_ client: EncoreClient, _ options: UnsafePointer<encore_push_options>?) throws -> RequestScript<PushStatus> {
    let service = PushService(store: client.store)
    let retry = try pushRetry(options)
    if try service.status().state.registered { return try service.deregisterOperation(server: nil, api: nil, retry: retry) }
    return try service.deregisterOperation(server: try client.pushURL(), api: client.servers.pushAPI, retry: retry)
}

/// The registration state as JSON ({"registered", "registeredAt", "server",
/// "api", "pushType", "exposureNotifications", "checkIns", "isolated"}; the
/// tokens are not in it), for encore_bytes_free().
@c public func encore_push_get_status_json(_ client: encore_client_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let service = PushService(store: try clientStore(client))
        try output(out, "out") { try LibraryBytes.make(service.status().json.rendered) }
    }
}
