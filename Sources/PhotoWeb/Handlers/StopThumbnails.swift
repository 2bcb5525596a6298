import Foundation
import HTTPTypes
import Hummingbird
import Locking
import NIOCore
import PhotoPipeline

/// The answer to a stop that asks for its rows' thumbnails (`POST /api/viewport?thumbnails=A-B`,
/// its report already taken): the sepia thumbnail of each of rows A...B the moment it is made, in the
/// order they are ready, waiting `wait` at most (`Defaults.thumbnailWait`). Each is a frame: a line `index
/// length type` (its media type), then its `length` bytes. With `previews=1`, a row still downloading
/// also has a frame for its newest sepia preview of the bytes arrived before its final one, its line
/// ending with the preview's number (`index length type N`, as `GET /photos/N/partial?n=N`). The
/// answer ends once every row has its final frame or its wait ran out.
///
/// Why one request: the stop's report is taken before the answer begins, so what the rows wait for
/// has started or never will; nothing races and nothing is waited for on the chance that it starts.
/// A row with nothing made nor coming (nobody started it, it failed) costs nothing: no task, no wait.
/// A row's unsent frame is replaced by its newer one, so an answer never read holds at most one
/// frame a row (and those share the cache's bytes).
struct StopThumbnails: Sendable {
    /// Most rows one stop may ask for: a tall window's screen.
    static let mostRows = 32

    let pipeline: PhotoPipeline
    let rows: ClosedRange<Int>
    let previews: Bool
    let wait: Duration

    /// The query's ask: `thumbnails=A-B` (at most `mostRows` rows) and `previews` (0 or 1); nil
    /// without `thumbnails` (a report answered `204`).
    struct Ask {
        let rows: ClosedRange<Int>
        let previews: Bool

        init?(_ request: Request) throws(APIError) {
            guard let text = request.queryValue("thumbnails") else {
                guard request.queryValue("previews") == nil else { throw .badRequest("previews go with thumbnails=A-B") }
                return nil
            }
            let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), 0 <= first, first <= last,
                  last - first < StopThumbnails.mostRows else {
                throw .badRequest("thumbnails \(text): rows A-B, counted from 0, A not after B, at most \(StopThumbnails.mostRows) rows")
            }
            rows = first...last
            switch request.queryValue("previews") {
            case nil, "0": previews = false
            case "1": previews = true
            case let other?: throw .badRequest("previews \(other): 1 for the previews of rows still downloading, 0 (the default) for none")
            }
        }
    }

    func response() -> Response {
        let deadline = ContinuousClock.now + wait
        // Decided now, the report taken: a thumbnail in memory is a frame at once; a row whose
        // thumbnail is on disk or on its way gets a task; any other nothing.
        var ready: [ByteBuffer] = []
        var coming: [Int] = []
        for index in rows {
            if let image = pipeline.thumbnailInMemory(of: index) {
                ready.append(Self.frame(of: index, image))
            } else if pipeline.thumbnailMadeOrComing(of: index) {
                coming.append(index)
            }
        }
        let pipeline = pipeline, previews = previews
        let body = ResponseBody { [ready, coming] writer in
            for frame in ready { try await writer.write(frame) }
            if !coming.isEmpty {
                let frames = LatestFrames(rows: coming.count)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in coming {
                        group.addTask {
                            defer { frames.rowEnded() }
                            var shown: Int? = previews ? 0 : nil
                            while let step = try? await pipeline.nextThumbnail(of: index, after: shown, until: deadline) {
                                frames.put(index, step)
                                guard case .preview(let sequence, _) = step else { return }
                                shown = sequence
                            }
                        }
                    }
                    // A write that fails (the page let go) ends the group: the rows' waits are cancelled.
                    while let (index, step) = await frames.next() {
                        switch step {
                        case .preview(let sequence, let image): try await writer.write(Self.frame(of: index, image, preview: sequence))
                        case .final(let image): try await writer.write(Self.frame(of: index, image))
                        }
                    }
                }
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

/// The frames of a stop's rows not sent yet: at most one a row (a newer one replaces it), handed to
/// the writer oldest first. Lock order: a leaf; the writer is resumed outside the lock.
final class LatestFrames: Sendable {
    private struct State {
        var order: [Int] = []
        var frames: [Int: PhotoPipeline.ThumbnailStep] = [:]
        var open: Int
        var reader: CheckedContinuation<(Int, PhotoPipeline.ThumbnailStep)?, Never>?
    }

    private let state: Locked<State>

    init(rows: Int) {
        state = Locked(State(open: rows))
    }

    /// Row `index`'s newest step, replacing its unsent one.
    func put(_ index: Int, _ step: PhotoPipeline.ThumbnailStep) {
        let handOn = state.withLock { state -> CheckedContinuation<(Int, PhotoPipeline.ThumbnailStep)?, Never>? in
            if let reader = state.reader.take() { return reader }
            if state.frames.updateValue(step, forKey: index) == nil { state.order.append(index) }
            return nil
        }
        handOn?.resume(returning: (index, step))
    }

    /// One row has nothing more to send.
    func rowEnded() {
        let ended = state.withLock { state -> CheckedContinuation<(Int, PhotoPipeline.ThumbnailStep)?, Never>? in
            state.open -= 1
            return state.open == 0 ? state.reader.take() : nil
        }
        ended?.resume(returning: nil)
    }

    /// The oldest unsent frame, waiting for one; nil once every row has ended and all were sent.
    func next() async -> (Int, PhotoPipeline.ThumbnailStep)? {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> (Int, PhotoPipeline.ThumbnailStep)?? in
                if !state.order.isEmpty {
                    let index = state.order.removeFirst()
                    return .some(state.frames.removeValue(forKey: index).map { (index, $0) })
                }
                if state.open == 0 { return .some(nil) }
                state.reader = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
