import EncoreHTTP
import EncoreSupport

/// The requests of push registration, no I/O: SwissCovid's
/// `POST /v3/register` (a PushRegistration protobuf; an empty push token
/// deregisters), or the registry's own API (`PUT`/`DELETE /v1/registrations`
/// with the app-instance token as a bearer token). These are the only
/// requests that carry the app-instance token.
public enum PushProtocol {
    public enum API: String, Sendable, CaseIterable {
        case swisscovid, registry
    }

    public static let swissCovidPath = "/v3/register"
    public static let registryPath = "/v1/registrations"

    /// A registration (a non-empty push token) or a deregistration (nil).
    public static func request(base: String, api: API, instanceToken: String, push: (token: String, type: PushType)?) throws -> HTTPRequest {
        try URLPolicy.check(base)
        try PushRegistration.validateInstanceToken(instanceToken)
        if let push { try PushRegistration.validatePushToken(push.token, type: push.type) }
        switch api {
        case .swisscovid:
            let body = try PushRegistration(pushToken: push?.token ?? "", pushType: push?.type ?? .ios, instanceToken: instanceToken).encoded()
            return HTTPRequest(method: "POST", url: URLPolicy.joined(base, swissCovidPath),
                               headers: [HTTPHeader("Content-Type", "application/x-protobuf")], body: body)
        case .registry:
            let auth = HTTPHeader("Authorization", "Bearer " + instanceToken)
            guard let push else { return HTTPRequest(method: "DELETE", url: URLPolicy.joined(base, registryPath), headers: [auth]) }
            let body = JSONValue.object([("pushToken", .string(push.token)), ("pushType", .string(push.type.rawValue))]).rendered
            return HTTPRequest(method: "PUT", url: URLPolicy.joined(base, registryPath),
                               headers: [auth, HTTPHeader("Content-Type", "application/json")], body: Array(body.utf8))
        }
    }

    /// Any 2xx is success (SwissCovid answers 200, the registry 204).
    public static func check(_ response: HTTPResponse, deregistration: Bool) throws {
        guard !(200 ... 299).contains(response.status) else { return }
        throw ServerAnswer.error(response, deregistration ? "push deregistration" : "push registration")
    }
}
