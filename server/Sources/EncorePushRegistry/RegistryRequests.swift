import EncorePush
import EncoreSupport

/// The two request forms the registry understands, read into one
/// `PushRegistration` (the project's codec and token rules, shared with the
/// client), without I/O, with the push token in its canonical form
/// (`PushRegistration.canonicalPushToken`: APNs tokens in lower case)
/// before anything is looked up or written. Errors are `.pushMessage` (not
/// readable) or `.pushToken` (a token of the wrong form, or holding a
/// control character); both are answered 400.
public enum RegistryRequests {
    /// Bodies above this are refused before they are parsed (413).
    public static let maxBodyBytes = PushRegistration.maxMessageBytes

    /// SwissCovid's `POST /v3/register` body (protobuf).
    public static func swissCovid(body: [UInt8]) throws -> PushRegistration {
        try PushRegistration(decoding: body).canonicalized()
    }

    /// `PUT /v1/registrations`: `{"pushToken": "...", "pushType": "ios"|"ios-sandbox"|"android"}`
    /// with `Authorization: Bearer <instance token>`.
    public static func registryPut(authorization: String?, body: [UInt8]) throws -> PushRegistration {
        let instance = try bearer(authorization)
        guard body.count <= maxBodyBytes else {
            throw EncoreError(.pushMessage, "a registration is at most \(maxBodyBytes) bytes")
        }
        let json: JSONReader
        do {
            json = JSONReader(try JSONParser.parse(body))
        } catch {
            throw EncoreError(.pushMessage, "the body is not JSON")
        }
        let token: String, typeName: String
        do {
            token = try json.member("pushToken").string()
            typeName = try json.member("pushType").string()
        } catch {
            throw EncoreError(.pushMessage, "the body needs the strings pushToken and pushType")
        }
        guard let type = PushType(rawValue: typeName) else {
            throw EncoreError(.pushMessage, "pushType is ios, ios-sandbox or android")
        }
        // An empty push token in a PUT is a mistake, not a deregistration
        // (DELETE is the way to deregister in this API).
        guard !token.isEmpty else { throw EncoreError(.pushToken, "pushToken is empty (use DELETE to deregister)") }
        return try PushRegistration(pushToken: token, pushType: type, instanceToken: instance).canonicalized()
    }

    /// `DELETE /v1/registrations`: the bearer token only.
    public static func registryDelete(authorization: String?) throws -> PushRegistration {
        let registration = PushRegistration(pushToken: "", pushType: .ios, instanceToken: try bearer(authorization))
        try registration.validate()
        return registration
    }

    /// The instance token of an `Authorization: Bearer <token>` header.
    public static func bearer(_ header: String?) throws -> String {
        guard let header else { throw EncoreError(.pushToken, "missing Authorization: Bearer <app-instance token>") }
        let prefix = "bearer "
        guard header.utf8.count > prefix.utf8.count, header.lowercased().hasPrefix(prefix) else {
            throw EncoreError(.pushToken, "the Authorization header is not a Bearer token")
        }
        let token = String(header.dropFirst(prefix.count))
        try PushRegistration.validateInstanceToken(token)
        return token
    }
}
