import Foundation
import PhotoPipeline

extension EventOutbox {
    /// A payload to enqueue, before it has an id.
    struct Payload: Sendable {
        var name: OutgoingEvent.Name
        var data: Data
        var photoIndex: Int? = nil
        /// The row an uncoalesced event is about (a preview): sent only to viewers near it, as updates are.
        var aboutRow: Int? = nil
        /// When the pipeline made the event it tells of; unknown for the server's own (a snapshot, a tick's totals).
        var made = EventStamp.unknown

        /// The row this event is about, if any: viewers far from it are not sent it.
        var row: Int? { photoIndex ?? aboutRow }

        /// A `photo` event: row `index` is in `state` (`preview`: its unfiltered thumbnail is ready);
        /// with its `record`'s name and URL for a row the viewer has not been told of yet.
        static func photo(_ index: Int, _ state: PhotoRecordState, preview: Bool = false, record: PhotoRecord? = nil) -> Payload {
            Payload(
                name: .photo, data: EventPayloads.json(EventPayloads.Photo(index: index, state: state, record: record, preview: preview)),
                photoIndex: index)
        }

        /// A `photo` event with the `sequence`-th preview of what has arrived of row `index`. Never
        /// folded into a later update of the row (which would drop the `partial` field): sent as it is.
        static func partialPreview(_ index: Int, _ state: PhotoRecordState, sequence: Int) -> Payload {
            Payload(name: .photo, data: EventPayloads.json(EventPayloads.Photo(index: index, state: state, partial: sequence)), aboutRow: index)
        }
    }
}
