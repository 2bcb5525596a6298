import HTTPTypes
import Metrics
import NIOCore
import PhotoTransport

/// The counters a route's 200 and 304 are counted under, for one method.
typealias ValidatedCounters = (ok: Metrics.Counter, notModified: Metrics.Counter)

extension ReadyResponse {
    /// A made answer with an entity tag, as its route gives it to `request`: the 304 when the
    /// request's `If-None-Match` names `tag`, else the 200 (its body for a GET only); counted as the
    /// route's answer is.
    static func validated(
        _ request: HTTPRequest, tag: String, ok: HTTPResponse, notModified: HTTPResponse, body: ByteBuffer, counters: ValidatedCounters
    ) -> ReadyResponse {
        if request.headerFields.namesCurrentCopy(tagged: tag) {
            counters.notModified.increment()
            return ReadyResponse(head: notModified, body: nil)
        }
        counters.ok.increment()
        return ReadyResponse(head: ok, body: request.method == .head ? nil : body)
    }
}
