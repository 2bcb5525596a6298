import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PhotoPipeline

/// `GET /photos/thumbnails?first=A&last=B[&previews=1]`: the sepia thumbnails of rows A...B on one
/// answer, each the moment its filter is done (waiting `Defaults.thumbnailWait` at most, as `GET
/// /photos/N/thumbnail` does), in the order they are ready. Each is a frame: a line `index length
/// type` (its media type), then its `length` bytes. With `previews=1`, a row still downloading also
/// has a frame for each new sepia preview of its bytes arrived before its final one, its line ending
/// with the preview's number (`index length type N`, as `GET /photos/N/partial?n=N`). A row whose
/// thumbnail does not come in time, or failed, has no final frame; the answer ends once every row has
/// its final frame or its wait ran out.
///
/// Why: after a jump, the page wants each row on screen's final thumbnail the moment it is made. Over
/// HTTP/1.1 a browser has six connections to the server and the page keeps two for its event stream
/// and its reports, so a thumbnail asked for on its own, held until its filter is done, takes one of
/// four; the page asked for each only as the events said its last byte was near, and those events
/// reach a busy page late (first_pixels.py: half the rows of a stop asked after they were filtered).
/// One request for the whole screen, asked at the stop, takes one connection and needs no event.
///
/// Like the thumbnail itself, asking starts no work; at most `mostRows` rows a request.
struct ThumbnailsHandler: Sendable {
    /// Most rows one request may name: a tall window's screen.
    static let mostRows = 32
    /// How long a row not started yet is waited for to start: the page asks as it reports the stop,
    /// on another connection, so the report may be taken a little after this request.
    static let startGrace: Duration = .milliseconds(500)

    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let first = try AppContext.photoIndex(request.queryValue("first"))
        let last = try AppContext.photoIndex(request.queryValue("last"))
        guard 0 <= first, first <= last, last - first < Self.mostRows else {
            throw APIError.badRequest("rows \(first)...\(last): rows count from 0, first must not be after last, and at most \(Self.mostRows) rows")
        }
        // A lab lane's rows name its viewer: their images are its channel's pipeline's.
        let pipeline = try context.imageChannel(viewer: request.queryValue("viewer")).loadedPipeline()
        guard last < pipeline.entries.count else {
            throw APIError.notFound("no photo \(last): the list has \(pipeline.entries.count)")
        }
        // With `previews=1`, a row still downloading also gets a frame for each new preview of its bytes
        // arrived (a header with its number), before the final one.
        let previews: Bool
        switch request.queryValue("previews") {
        case nil, "0": previews = false
        case "1": previews = true
        case let other?: throw APIError.badRequest("previews \(other): 1 for the previews of rows still downloading, 0 (the default) for none")
        }
        let deadline = ContinuousClock.now + Defaults.thumbnailWait
        let startBy = ContinuousClock.now + Self.startGrace
        let body = ResponseBody { writer in
            let (frames, sink) = AsyncStream<ByteBuffer>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await withTaskGroup(of: Void.self) { rows in
                        for index in first...last {
                            rows.addTask {
                                var shown: Int? = previews ? 0 : nil
                                while let step = try? await pipeline.nextThumbnail(of: index, after: shown, until: deadline, startBy: startBy) {
                                    switch step {
                                    case .preview(let sequence, let image):
                                        sink.yield(Self.frame(of: index, image, preview: sequence))
                                        shown = sequence
                                    case .final(let image):
                                        sink.yield(Self.frame(of: index, image))
                                        return
                                    }
                                }
                            }
                        }
                    }
                    sink.finish()
                }
                // A write that fails (the page let go) ends the group: the rows' waits are cancelled.
                for await frame in frames { try await writer.write(frame) }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "application/octet-stream",
            .cacheControl: "no-store",
            .xAccelBuffering: "no",
        ], body: body)
    }

    /// Row `index`'s frame: `index length type`, then the image's bytes; a preview's header ends with
    /// its number.
    static func frame(of index: Int, _ image: CachedImage, preview: Int? = nil) -> ByteBuffer {
        var frame = ByteBuffer(string: "\(index) \(image.data.count) \(ImageHandler.contentType(of: image))"
            + (preview.map { " \($0)" } ?? "") + "\n")
        frame.writeBytes(image.data)
        return frame
    }
}
