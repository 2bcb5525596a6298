import HTTPTypes
import Hummingbird
import NIOCore
import PhotoTransport

extension ReadyResponse {
    /// A made answer with an entity tag, as its route gives it to `request`: the 304 when the
    /// request's `If-None-Match` names `tag`, else the 200 (its body for a GET only).
    static func validated(_ request: HTTPRequest, tag: String, ok: HTTPResponse, notModified: HTTPResponse, body: ByteBuffer) -> ReadyResponse {
        if request.headerFields.namesCurrentCopy(tagged: tag) { return ReadyResponse(head: notModified, body: nil) }
        return ReadyResponse(head: ok, body: request.method == .head ? nil : body)
    }
}

extension Response {
    /// `answer` as the router sends it: the same head (its `Content-Length` kept) and body.
    init(_ answer: ReadyResponse) {
        self.init(
            status: answer.head.status, headers: answer.head.headerFields,
            body: answer.body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }
}
