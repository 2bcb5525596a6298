import Foundation

extension EventPayloads {
    /// The first event of `GET /events/shared`: the stream's id, for joins and leaves, and how many
    /// viewers it may carry.
    struct SharedStream: Encodable {
        var stream: String
        var maxViewers: Int
    }
}
