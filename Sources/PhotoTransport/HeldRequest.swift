import HTTPTypes
import NIOCore

/// A request whose body a `ReadyResponding` reads on the event loop (`bodyToRead`), held until its
/// end: its head and the body so far, never more than `limit` bytes. Shared by the HTTP/1.1
/// connection's `ReadyResponseHandler` and an HTTP/2 stream's `ReadyStreamHandler`.
struct HeldRequest {
    let request: HTTPRequest
    private(set) var body: ByteBuffer
    let limit: Int

    init(_ request: HTTPRequest, limit: Int, allocator: ByteBufferAllocator) {
        (self.request, self.limit) = (request, limit)
        body = allocator.buffer(capacity: 0)
    }

    /// Adds `part` to the body; false (and nothing added) when it would go past `limit`: the request
    /// is then the router's, with the body held so far.
    mutating func add(_ part: ByteBuffer) -> Bool {
        guard body.readableBytes + part.readableBytes <= limit else { return false }
        var part = part
        body.writeBuffer(&part)
        return true
    }
}
