import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import PhotoTransport
import Synchronization

/// `GET` and `HEAD /api/photos` (no query, or only `from` and `limit`) answered on the event loop
/// (`ReadyResponseHandler`, `ReadyStreamHandler`) with what the route would answer: the same status,
/// fields and bytes, the same 304, and the same count in `/metrics`.
///
/// Only an answer the route made and kept for the list's version now is sent here
/// (`PhotoListAnswers.kept`); a list not loaded yet, a version not answered yet (making JSON is no
/// work for an event loop), a query the route refuses or any other query go to the route.
final class ReadyPhotoList: ReadyResponding {
    private let library: PhotoLibrary
    private let answers: PhotoListAnswers
    private let meters: [HTTPRequest.Method: ValidatedMeters]
    /// Requests answered here, for tests.
    let answered = Atomic<Int>(0)

    init(library: PhotoLibrary, answers: PhotoListAnswers, metrics: ServerMetrics) {
        (self.library, self.answers) = (library, answers)
        meters = metrics.okAndNotModifiedMeters(path: "/api/photos")
    }

    func readyResponse(to request: HTTPRequest, on channel: any Channel) -> ReadyResponse? {
        let start = ContinuousClock.now
        guard let meter = meters[request.method], let page = Self.page(request.path),
              let pipeline = library.pipeline,
              let made = answers.kept(.init(page: page, gzip: Compression.accepted(by: request.headerFields)), of: pipeline)
        else { return nil }
        answered.add(1, ordering: .relaxed)
        return .validated(request, tag: made.tag, ok: made.sentOK, notModified: made.sentNotModified, body: made.body, meters: meter, since: start)
    }

    /// The page `path` asks for when it is `/api/photos` with no query or only `from` and `limit`
    /// that the route accepts, else nil.
    static func page(_ path: String?) -> PhotoPage? {
        guard let path, path.hasPrefix("/api/photos") else { return nil }
        let rest = path.utf8.dropFirst(11)
        if rest.isEmpty { return PhotoPage.top }
        guard rest.first == UInt8(ascii: "?") else { return nil }
        let query = URI(path).queryParameters
        guard query.allSatisfy({ $0.key == "from" || $0.key == "limit" }) else { return nil }
        return try? PhotoPage(from: query.get("from"), limit: query.get("limit"))
    }
}
