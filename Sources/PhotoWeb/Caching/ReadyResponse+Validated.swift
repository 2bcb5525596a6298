import HTTPTypes
import NIOCore
import PhotoTransport

/// The meters a route's 200 and 304 are recorded under, for one method.
typealias ValidatedMeters = (ok: AnswerMeter, notModified: AnswerMeter)

extension ReadyResponse {
    /// A made answer with an entity tag, as its route gives it to `request`: the 304 when the
    /// request's `If-None-Match` names `tag`, else the 200 (its body for a GET only); counted and
    /// timed from `start` as the route's answer is.
    static func validated(
        _ request: HTTPRequest, tag: String, ok: HTTPResponse, notModified: HTTPResponse, body: ByteBuffer, meters: ValidatedMeters,
        since start: ContinuousClock.Instant
    ) -> ReadyResponse {
        if request.headerFields.namesCurrentCopy(tagged: tag) {
            meters.notModified.record(since: start)
            return ReadyResponse(head: notModified, body: nil)
        }
        meters.ok.record(since: start)
        return ReadyResponse(head: ok, body: request.method == .head ? nil : body)
    }
}
