// encore.h section: push, part 2
import CEncoreTypes
import EncoreCheck
import EncoreClient
import EncorePush

// The push registration's state as a struct, made from the same PushStatus
// as its JSON (encore_push_get_status_json).

private let pushAPIs: [PushProtocol.API: Int32] = [.swisscovid: ENCORE_PUSH_API_SWISSCOVID, .registry: ENCORE_PUSH_API_REGISTRY]
private let pushTypes: [PushType: Int32] = [.ios: ENCORE_PUSH_TYPE_IOS, .android: ENCORE_PUSH_TYPE_ANDROID, .iosSandbox: ENCORE_PUSH_TYPE_IOS_SANDBOX]

/// Writes the stored registration state of the client's store: whether a
/// registration is stored and since when, with which registry, API and
/// push type, and the state the rule decides on (Exposure Notifications,
/// check-ins, isolation); the tokens are not in it. status->struct_size must
/// be set by the caller (ENCORE_ERR_INVALID_ARGUMENT when it is too small).
/// status->server is the caller's: release it with encore_bytes_free();
/// nothing is written on failure. No request is made. Thread-safe as the
/// client is.
@c public func encore_push_get_status(_ client: encore_client_ptr?, _ status: UnsafeMutablePointer<encore_push_status>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        try checkOutput(status, "status")
        let s = try PushService(store: c.store).status()
        var out = encore_push_status()
        out.struct_size = structSize(encore_push_status.self)
        out.registered = s.state.registered ? 1 : 0
        setOptional(&out.registered_at, &out.has_registered_at, s.state.registeredAt)
        out.api = s.api.flatMap { pushAPIs[$0] } ?? -1
        out.push_type = s.pushType.flatMap { pushTypes[$0] } ?? -1
        out.has_push_token = s.hasPushToken ? 1 : 0
        out.exposure_notifications = s.state.enActive ? 1 : 0
        out.check_ins = s.state.hasCheckIns ? 1 : 0
        out.isolated = s.state.isolated ? 1 : 0
        out.server = try LibraryBytes.make(s.server ?? "")
        try writeOwnedOutput(out, to: status, "status", owned: [out.server])
    }
}
