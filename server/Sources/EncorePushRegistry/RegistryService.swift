import EncoreProtocols
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// One answer of the registry: a status and a short text (empty on success).
public struct RegistryAnswer: Sendable, Equatable {
    public var status: Int
    public var text: String
    public var retryAfter: Int?

    public init(status: Int, text: String = "", retryAfter: Int? = nil) {
        self.status = status
        self.text = text
        self.retryAfter = retryAfter
    }
}

/// The registry's request handling, independent of the HTTP server: rate
/// limit, parse and validate, apply, answer. Successful answers are the
/// same whatever the request changed (SwissCovid's 200 with an empty body
/// on /v3; 204 on /v1), so that they tell nothing about other devices.
public final class RegistryService: Sendable {
    public enum Endpoint: Sendable {
        case swissCovid, registryPut, registryDelete

        var success: Int { self == .swissCovid ? 200 : 204 }
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
        return RegistryAnswer(status: 429, text: "too many requests: try again in \(seconds) s", retryAfter: seconds)
    }

    public func handle(_ endpoint: Endpoint, authorization: String?, body: [UInt8]) async -> RegistryAnswer {
        if endpoint != .swissCovid {
            // Without a usable bearer token the request is not authenticated (401).
            do { _ = try RegistryRequests.bearer(authorization) } catch let e as EncoreError {
                return RegistryAnswer(status: 401, text: e.message)
            } catch {
                return RegistryAnswer(status: 401, text: "unauthorized")
            }
        }
        let registration: PushRegistration
        do {
            switch endpoint {
            case .swissCovid: registration = try RegistryRequests.swissCovid(body: body)
            case .registryPut: registration = try RegistryRequests.registryPut(authorization: authorization, body: body)
            case .registryDelete: registration = try RegistryRequests.registryDelete(authorization: authorization)
            }
        } catch let e as EncoreError {
            return RegistryAnswer(status: 400, text: e.message)
        } catch {
            return RegistryAnswer(status: 400, text: "bad request")
        }
        do {
            try await store.apply(registration, now: Int64(clock()))
        } catch {
            return RegistryAnswer(status: 503, text: "the registry cannot take registrations right now", retryAfter: 5)
        }
        return RegistryAnswer(status: endpoint.success)
    }
}
