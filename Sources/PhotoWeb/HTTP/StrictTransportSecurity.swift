import Hummingbird

/// With TLS: `Strict-Transport-Security` on every answer, so a browser that has been here over
/// HTTPS never tries plain HTTP for this host again within `maxAge` seconds.
struct StrictTransportSecurity: RouterMiddleware {
    typealias Context = PhotoRequestContext

    let value: String

    init(maxAge: Int) {
        value = "max-age=\(maxAge)"
    }

    /// The middleware `configuration` asks for: with TLS and a max age above 0; nil otherwise.
    init?(_ configuration: WebConfiguration) {
        guard configuration.tls != nil, configuration.hstsMaxAge > 0 else { return nil }
        self.init(maxAge: configuration.hstsMaxAge)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.strictTransportSecurity] = value
        return response
    }
}
