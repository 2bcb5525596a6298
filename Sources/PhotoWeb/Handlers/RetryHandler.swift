import Hummingbird
import PhotoPipeline
import Logging

/// `POST /api/photos/N/retry`: a failed photo is forgotten as failed and worked on again for every
/// viewer that has it on screen (the others ask for it with their next viewport report). `202`;
/// `429` past the client's `--retries-per-minute` or while the photo waits out its back-off.
struct RetryHandler: Sendable {
    let context: AppContext

    func handle(_ request: Request, context requestContext: PhotoRequestContext) async throws -> Response {
        let index = try AppContext.photoIndex(requestContext.parameters.get("index"))
        let pipeline = try context.loadedPipeline()
        // Only a retry that would fetch again is counted against the limits (404 and 409 come from `retry`).
        if pipeline.entries.indices.contains(index), case .failed = pipeline.record(index).state {
            let client = context.clientAddress(of: request, peer: requestContext.peer)
            if let refusal = context.retries.admit(index, for: client) {
                throw APIError.tooManyRequests(refusal.reason, retryAfter: refusal.seconds)
            }
        }
        let record: PhotoRecord
        do {
            record = try pipeline.retry(index)
        } catch {
            throw APIError(error)
        }
        // The row as the retry left it: a row on screen starts again at once, and may be downloading
        // before this answer is written.
        let state = record.state
        context.logger.info("photo retried", metadata: ["index": "\(index)", "name": "\(record.name)"])
        for session in context.viewers.all(in: context.list) {
            if let controller = session.existingController, controller.visibleRows?.contains(index) == true {
                controller.startOperations(for: record)
            }
        }
        return .json(EventPayloads.Photo(index: index, state: state), status: .accepted)
    }
}
