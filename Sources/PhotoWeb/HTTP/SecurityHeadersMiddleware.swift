import HTTPTypes
import Hummingbird

/// Adds `X-Content-Type-Options: nosniff` to every response a route gives, so a browser takes each
/// body as the type it is labelled with and never runs bytes an origin sent (an HTML page posing
/// as a photo) as a page of this host.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}
