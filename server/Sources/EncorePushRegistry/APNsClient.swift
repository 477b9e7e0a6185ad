import AsyncHTTPClient
import EncorePush
import EncoreSupport
import NIOCore
import NIOHTTP1
import NIOSSL

/// Where and as whom pushes go.
public struct APNsConfiguration: Sendable {
    /// e.g. https://api.push.apple.com (tests: the stand-in).
    public var base: String
    /// For iOS-sandbox tokens (https://api.sandbox.push.apple.com); nil: `base`.
    public var sandboxBase: String?
    public var topic: String
    public var keyID: String
    public var teamID: String
    /// A PEM file of CA certificates to trust instead of the system's (tests).
    public var caFile: String?
    public var requestTimeoutSeconds: Int64 = 30

    public init(base: String, sandboxBase: String?, topic: String, keyID: String, teamID: String, caFile: String?) {
        self.base = base
        self.sandboxBase = sandboxBase
        self.topic = topic
        self.keyID = keyID
        self.teamID = teamID
        self.caFile = caFile
    }

    /// The request target of one token.
    public func url(for token: DueToken) -> String {
        let b = (token.pushType == .iosSandbox ? sandboxBase : nil) ?? base
        return (b.hasSuffix("/") ? String(b.dropLast()) : b) + "/3/device/" + token.pushToken
    }
}

/// Silent pushes over HTTP/2 (negotiated by ALPN; APNs speaks nothing
/// else) with a provider token that is reused until the refresh policy
/// says otherwise.
public final class APNsClient: Sendable {
    /// The whole push: no alert, no data, it only wakes the app.
    public static let payload: [UInt8] = Array(#"{"aps":{"content-available":1}}"#.utf8)

    public let configuration: APNsConfiguration
    private let http: HTTPClient
    private let key: APNsSigningKey
    private let policy: JWTRefreshPolicy
    private let jwt = Locked<(token: String, issuedAt: Int64)?>(nil)

    public init(configuration: APNsConfiguration, key: APNsSigningKey, policy: JWTRefreshPolicy = JWTRefreshPolicy(), concurrency: Int) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let ca = configuration.caFile {
            tls.trustRoots = .file(ca)
        }
        tls.applicationProtocols = ["h2"]
        var c = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow,
                                         timeout: .init(connect: .seconds(10), read: .seconds(configuration.requestTimeoutSeconds)))
        c.httpVersion = .automatic
        c.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: c)
        self.configuration = configuration
        self.key = key
        self.policy = policy
    }

    public func shutdown() async {
        try? await http.shutdown()
    }

    /// The current provider token, made anew when the policy says so.
    /// `rejected`: APNs called the one issued at that time expired.
    public func providerToken(now: Int64, rejectedIssuedAt: Int64? = nil) throws -> (token: String, issuedAt: Int64) {
        try jwt.withLock { current in
            let rejected = rejectedIssuedAt != nil && rejectedIssuedAt == current?.issuedAt
            if let current, !policy.needsRefresh(issuedAt: current.issuedAt, now: now, rejected: rejected) {
                return current
            }
            let made = (token: try APNsJWT.make(keyID: configuration.keyID, teamID: configuration.teamID, issuedAt: now, key: key), issuedAt: now)
            current = made
            return made
        }
    }

    /// One push; a transport failure is answered as status 0 (retry later).
    public func push(_ token: DueToken, now: Int64) async -> (answer: APNsAnswer, issuedAt: Int64?) {
        var issuedAt: Int64?
        do {
            let provider = try providerToken(now: now)
            issuedAt = provider.issuedAt
            return (try await send(token, bearer: provider.token), issuedAt)
        } catch {
            return (Self.answer(for: error), issuedAt)
        }
    }

    /// After an ExpiredProviderToken: one more try with a new token (if the
    /// refresh policy allows one).
    public func retryWithNewProviderToken(_ token: DueToken, rejectedIssuedAt: Int64?, now: Int64) async -> APNsAnswer {
        do {
            let provider = try providerToken(now: now, rejectedIssuedAt: rejectedIssuedAt)
            return try await send(token, bearer: provider.token)
        } catch {
            return Self.answer(for: error)
        }
    }

    /// No answer: a TLS failure (-1: the server is not trusted, retrying
    /// does not help) or any other transport failure (0: try again later).
    static func answer(for error: any Error) -> APNsAnswer {
        if error is NIOSSLError || error is BoringSSLError {
            return APNsAnswer(status: -1, reason: "TLS: \(String(describing: error).prefix(200))")
        }
        return APNsAnswer(status: 0, reason: "NoAnswer")
    }

    private func send(_ token: DueToken, bearer: String) async throws -> APNsAnswer {
        var request = HTTPClientRequest(url: configuration.url(for: token))
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + bearer)
        request.headers.add(name: "apns-push-type", value: "background")
        request.headers.add(name: "apns-priority", value: "5")
        request.headers.add(name: "apns-topic", value: configuration.topic)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Self.payload))
        let response = try await http.execute(request, timeout: .seconds(configuration.requestTimeoutSeconds))
        // APNs error bodies are a small JSON object; nothing larger is read.
        let body = try await response.body.collect(upTo: 4096)
        return APNsAnswer(status: Int(response.status.code), body: Array(buffer: body))
    }
}
