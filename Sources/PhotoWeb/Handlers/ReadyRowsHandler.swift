import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PhotoPipeline

/// `GET /photos/ready?first=A&last=B`: says, row by row, when the sepia thumbnails of rows A...B are
/// ready: a line with the row's index the moment its filter is done (waiting `Defaults.thumbnailWait`
/// at most, as `GET /photos/N/thumbnail` does), in the order they are ready; a row whose thumbnail
/// does not come in time has no line. The answer ends once every row has its line or its wait ran out.
///
/// Why: over HTTP/1.1 a browser has six connections to the server, and the page keeps two for its
/// event stream and its reports. A first screen's thumbnails asked for one by one, each held until
/// its filter is done, take a connection each (the page asked four at once, and the rest of the screen
/// waited for those four); this one request takes one for the whole screen, and each thumbnail is then
/// asked for when it is ready, answered at once from memory and kept by the browser under its own URL.
///
/// Like the thumbnail itself, asking starts no work; at most `mostRows` rows a request.
struct ReadyRowsHandler: Sendable {
    /// Most rows one request may name: a tall window's first screen (`FirstScreen.mostStartedRows`).
    static let mostRows = 32

    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let first = try Self.row(request.queryValue("first"), named: "first")
        let last = try Self.row(request.queryValue("last"), named: "last")
        guard first <= last, last - first < Self.mostRows else {
            throw APIError.badRequest("rows \(first)...\(last): first must not be after last, and at most \(Self.mostRows) rows")
        }
        let pipeline = try context.list.loadedPipeline()
        guard last < pipeline.entries.count else {
            throw APIError.notFound("no photo \(last): the list has \(pipeline.entries.count)")
        }
        let body = ResponseBody { writer in
            try await withThrowingTaskGroup(of: Int?.self) { group in
                for index in first...last {
                    group.addTask {
                        (try? await pipeline.readyThumbnail(of: index, waitingUpTo: Defaults.thumbnailWait)).map { _ in index }
                    }
                }
                for try await index in group {
                    guard let index else { continue }
                    try await writer.write(ByteBuffer(string: "\(index)\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "text/plain; charset=utf-8",
            .cacheControl: "no-store",
            .xAccelBuffering: "no",
        ], body: body)
    }

    /// Row index `text` of the query's `name`, or a 400 saying what is wrong.
    static func row(_ text: String?, named name: String) throws(APIError) -> Int {
        guard let text, let row = Int(text), row >= 0 else {
            throw .badRequest("\(name) must be a row: a whole number from 0, got \(text ?? "nothing")")
        }
        return row
    }
}
