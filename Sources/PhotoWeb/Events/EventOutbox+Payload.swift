import Foundation
import PhotoPipeline

extension EventOutbox {
    /// A payload to enqueue, before it has an id.
    struct Payload: Sendable {
        var name: OutgoingEvent.Name
        var data: Data
        var photoIndex: Int? = nil

        /// A `photo` event: row `index` is in `state` (`preview`: its unfiltered thumbnail is ready);
        /// with its `record`'s name and URL for a row the viewer has not been told of yet.
        static func photo(_ index: Int, _ state: PhotoState, preview: Bool = false, record: PhotoRecord? = nil) -> Payload {
            Payload(
                name: .photo, data: EventPayloads.json(EventPayloads.Photo(index: index, state: state, record: record, preview: preview)),
                photoIndex: index)
        }
    }
}
