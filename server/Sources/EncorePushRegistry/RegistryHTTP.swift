import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The request context: the remote address, for the per-source rate limit.
public struct PushRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    /// Bodies are capped before parsing.
    public var maxUploadSize: Int { RegistryRequests.maxBodyBytes }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// The routes of `encore-pushd serve` on Hummingbird.
public enum RegistryHTTP {
    /// `sourceHeader`: take the client address from this header's last
    /// entry (e.g. X-Forwarded-For set by a trusted load balancer) instead
    /// of the connection's peer.
    public static func router(service: RegistryService, sourceHeader: String? = nil) -> Router<PushRequestContext> {
        let router = Router(context: PushRequestContext.self)
        let forwarded = sourceHeader.flatMap { HTTPField.Name($0) }

        @Sendable func source(_ request: Request, _ context: PushRequestContext) -> String {
            if let forwarded, let value = request.headers[forwarded],
               let last = value.split(separator: ",").last?.filter({ $0 != " " && $0 != "\t" }), !last.isEmpty {
                return String(last)
            }
            return context.remoteAddress?.ipAddress ?? "unknown"
        }

        @Sendable func serve(_ endpoint: RegistryService.Endpoint, _ request: Request, _ context: PushRequestContext) async throws -> Response {
            if let refused = service.admit(source: source(request, context)) { return refusal(refused) }
            var body: [UInt8] = []
            if endpoint != .registryDelete {
                // Declared too large: refused without reading a byte.
                if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > RegistryRequests.maxBodyBytes {
                    return refusal(.tooLarge)
                }
                var request = request
                do {
                    body = Array(buffer: try await request.collectBody(upTo: RegistryRequests.maxBodyBytes))
                } catch {
                    return refusal(.tooLarge)
                }
            }
            return response(await service.handle(endpoint, authorization: request.headers[.authorization],
                                                 contentType: request.headers[.contentType], body: body))
        }

        router.post("v3/register") { request, context in try await serve(.swissCovid, request, context) }
        router.put("v1/registrations") { request, context in try await serve(.registryPut, request, context) }
        router.delete("v1/registrations") { request, context in try await serve(.registryDelete, request, context) }
        // Liveness: the process answers. Readiness: the storage answers too
        // (a load balancer sends registrations only to ready instances).
        router.get("health") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
        router.get("ready") { _, _ in
            if await service.ready() { return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ready\n"))) }
            return response(RegistryAnswer(status: 503, text: "the storage does not answer", retryAfter: 5))
        }
        return router
    }

    /// A refusal before the service has the request: counted here.
    static func refusal(_ answer: RegistryAnswer) -> Response {
        if let reason = answer.reason { PushdMetrics.refusal(reason) }
        return response(answer)
    }

    static func response(_ answer: RegistryAnswer) -> Response {
        var headers = HTTPFields()
        if let retry = answer.retryAfter { headers[.retryAfter] = String(retry) }
        if answer.text.isEmpty { return Response(status: .init(code: answer.status), headers: headers) }
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .init(code: answer.status), headers: headers,
                        body: .init(byteBuffer: ByteBuffer(string: answer.text + "\n")))
    }
}
