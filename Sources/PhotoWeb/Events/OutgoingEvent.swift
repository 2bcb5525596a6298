import Foundation
import NIOCore
import NIOFoundationEssentialsCompat

/// One server-sent event as a viewer receives it: `id`, `event` and one line of JSON `data`.
struct OutgoingEvent: Sendable {
    /// The SSE event names of the contract.
    enum Name: String, Sendable, CaseIterable {
        case source, snapshot, photo, queues, stats, operation, shutdown, presentation
    }

    /// Events with the same key replace each other while unsent: only a photo's latest state,
    /// the latest queue counts and the latest totals matter.
    enum CoalescingKey: Hashable, Sendable {
        case photo(Int)
        case queues
        case stats
        case presentation
    }

    /// Increases per viewer; what `Last-Event-ID` refers to.
    var id: UInt64
    var name: Name
    /// When the pipeline made it, for its delivery lag (`EventStreamMeter`); here, beside `name`, it
    /// takes no room of its own.
    var made: EventStamp
    /// The JSON payload, encoded once and shared between viewers.
    var data: Data
    var key: CoalescingKey?

    /// About the bytes its lines add to its data on the wire (`id`, `event`, `data`, the blank line):
    /// what a writer reserves, so a batch's buffer is allocated once.
    static let framingBytes = 64

    /// Appends the bytes on the wire to `buffer`: written straight into the stream's write, not
    /// built apart and copied (a thousand streams write each event).
    func write(to buffer: inout ByteBuffer) {
        buffer.writeStaticString("id: ")
        buffer.writeString(String(id))
        buffer.writeStaticString("\nevent: ")
        buffer.writeString(name.rawValue)
        buffer.writeStaticString("\ndata: ")
        buffer.writeData(data)
        buffer.writeStaticString("\n\n")
    }

    static func key(for name: Name, photoIndex: Int?) -> CoalescingKey? {
        switch name {
        case .photo: photoIndex.map { .photo($0) }
        case .queues: .queues
        case .stats: .stats
        case .presentation: .presentation
        case .source, .snapshot, .operation, .shutdown: nil
        }
    }
}
