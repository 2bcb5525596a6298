import Foundation
import PhotoPipeline

/// Which state of the photo list a body was made from: the pipeline and the last event it stamped.
/// Every change of a row stamps an event under the pipeline's lock, so while a list's version stays
/// the same, a body made from its rows (after the version was read) is current.
struct ListVersion: Hashable, Sendable {
    /// The pipeline (a restarted list, or a lab lane's, is another one).
    let pipeline: ObjectIdentifier
    /// Its last stamped event when the version was read.
    let sequence: UInt64

    /// `pipeline`'s version now. Read it before reading the rows a body is made from.
    init(of pipeline: PhotoPipeline) {
        self.pipeline = ObjectIdentifier(pipeline)
        sequence = pipeline.events.lastSequence
    }

    /// Whether a body made at `self` may replace one made at `other` (never an older one of the same list).
    func supersedes(_ other: ListVersion?) -> Bool {
        guard let other, other.pipeline == pipeline else { return true }
        return sequence > other.sequence
    }

    /// A strong entity tag for a body made at this version, told apart by `variant` (the page of rows,
    /// the encoding) and by this run of the server (sequences start again at each start).
    func entityTag(_ variant: String) -> String {
        "\"\(Self.run)-\(sequence)-\(variant)\""
    }

    /// This run of the server, in entity tags: a tag from an earlier run never matches.
    private static let run = String(UInt32.random(in: .min ... .max), radix: 36)
}
