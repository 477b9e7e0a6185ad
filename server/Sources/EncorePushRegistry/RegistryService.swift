import EncorePush
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// One answer of the registry: a status and a short text (empty on success).
/// Refusals carry a reason: a fixed word for the metrics
/// (`encore_pushd_refusals_total`), never shown to the client.
public struct RegistryAnswer: Sendable, Equatable {
    public var status: Int
    public var text: String
    public var retryAfter: Int?
    public var reason: String?

    public init(status: Int, text: String = "", retryAfter: Int? = nil, reason: String? = nil) {
        self.status = status
        self.text = text
        self.retryAfter = retryAfter
        self.reason = reason
    }

    /// 400: a body that is not a registration, or a token of the wrong form.
    static func badRequest(_ e: EncoreError) -> RegistryAnswer {
        let reason = e.kind == .pushToken ? "bad_token" : (e.message.hasPrefix("unsupported PushRegistration version") ? "bad_version" : "bad_message")
        return RegistryAnswer(status: 400, text: e.message, reason: reason)
    }

    static let tooLarge = RegistryAnswer(status: 413, text: "the body is larger than \(RegistryRequests.maxBodyBytes) bytes", reason: "too_large")
}

/// The registry's request handling, independent of the HTTP server: rate
/// limit, parse and validate, apply, answer. Successful answers are the
/// same whatever the request changed (SwissCovid's 200 with an empty body
/// on /v3; 204 on /v1), so that they tell nothing about other devices.
public final class RegistryService: Sendable {
    public enum Endpoint: Sendable {
        case swissCovid, registryPut, registryDelete

        var success: Int { self == .swissCovid ? 200 : 204 }

        /// The media type of the body (`Content-Type`, parameters aside), if the endpoint has one.
        var mediaType: String? {
            switch self {
            case .swissCovid: return "application/x-protobuf"
            case .registryPut: return "application/json"
            case .registryDelete: return nil
            }
        }
    }

    public let store: any RegistryStore
    public let limiter: RateLimiter
    private let clock: @Sendable () -> Double

    public init(store: any RegistryStore, limiter: RateLimiter, clock: @escaping @Sendable () -> Double = RegistryService.wallClock) {
        self.store = store
        self.limiter = limiter
        self.clock = clock
    }

    public static let wallClock: @Sendable () -> Double = {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Before the body is read: the rate limit (a refused request costs no parsing).
    public func admit(source: String) -> RegistryAnswer? {
        guard let wait = limiter.check(source: source, now: clock()) else { return nil }
        let seconds = max(1, Int(wait.rounded(.up)))
        return RegistryAnswer(status: 429, text: "too many requests: try again in \(seconds) s", retryAfter: seconds, reason: "rate_limited")
    }

    /// A body of another media type than the endpoint's is refused with 415
    /// (`text/plain` was once parsed as protobuf).
    public static func checkContentType(_ endpoint: Endpoint, _ contentType: String?) -> RegistryAnswer? {
        guard let expected = endpoint.mediaType else { return nil }
        let given = contentType.map { String($0.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }).lowercased() }
        guard given == expected else {
            return RegistryAnswer(status: 415, text: "the body must be sent as Content-Type: \(expected)", reason: "media_type")
        }
        return nil
    }

    public func handle(_ endpoint: Endpoint, authorization: String?, contentType: String?, body: [UInt8]) async -> RegistryAnswer {
        let answer = await answer(endpoint, authorization: authorization, contentType: contentType, body: body)
        if let reason = answer.reason { PushdMetrics.refusal(reason) }
        return answer
    }

    /// Rate limit (before), then 401, 415, 400, 503, in that order.
    private func answer(_ endpoint: Endpoint, authorization: String?, contentType: String?, body: [UInt8]) async -> RegistryAnswer {
        if endpoint != .swissCovid {
            // Without a usable bearer token the request is not authenticated (401).
            do { _ = try RegistryRequests.bearer(authorization) } catch let e as EncoreError {
                return RegistryAnswer(status: 401, text: e.message, reason: "unauthorized")
            } catch {
                return RegistryAnswer(status: 401, text: "unauthorized", reason: "unauthorized")
            }
        }
        if let refused = Self.checkContentType(endpoint, contentType) { return refused }
        let registration: PushRegistration
        do {
            switch endpoint {
            case .swissCovid: registration = try RegistryRequests.swissCovid(body: body)
            case .registryPut: registration = try RegistryRequests.registryPut(authorization: authorization, body: body)
            case .registryDelete: registration = try RegistryRequests.registryDelete(authorization: authorization)
            }
        } catch let e as EncoreError {
            return .badRequest(e)
        } catch {
            return RegistryAnswer(status: 400, text: "bad request", reason: "bad_message")
        }
        do {
            PushdMetrics.registration(try await store.apply(registration, now: Int64(clock())))
        } catch {
            return RegistryAnswer(status: 503, text: "the registry cannot take registrations right now", retryAfter: 5, reason: "storage_unavailable")
        }
        return RegistryAnswer(status: endpoint.success)
    }

    /// `/ready`: the storage answers within `timeout` seconds.
    public func ready(timeout: Double = 2) async -> Bool {
        let store = self.store
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await store.ping()) != nil }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
