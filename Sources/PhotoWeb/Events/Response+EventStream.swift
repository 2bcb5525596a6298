import Foundation
import HTTPTypes
import Hummingbird

extension Response {
    /// A `200` of server-sent events written by `body`: never cached or transformed, and not
    /// buffered by a proxy (nginx reads `X-Accel-Buffering`).
    static func eventStream(_ body: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8",
                .cacheControl: "no-cache, no-transform",
                .xAccelBuffering: "no",
            ],
            body: ResponseBody(body))
    }
}
