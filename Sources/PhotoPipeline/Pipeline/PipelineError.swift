public import PhotoCodecs

/// Why the pipeline cannot hand out an image.
public enum PipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no row `index`.
    case noSuchPhoto(index: Int, count: Int)
    /// The image is not there (yet): the row is in `state`.
    case notAvailable(index: Int, variant: ImageVariant, state: PhotoRecordState)
    /// The photo could not be turned into the asked-for image.
    case renderFailed(index: Int, ImageCodecError)
    /// Only a failed photo can be tried again; this one is in `state`.
    case notFailed(index: Int, state: PhotoRecordState)

    public var description: String {
        switch self {
        case .noSuchPhoto(let index, let count):
            "no photo \(index): the list has \(count) photos (0...\(max(0, count - 1)))"
        case .notAvailable(let index, let variant, let state):
            switch state {
            case .failed(let reason, _): "photo \(index) failed to load: \(reason)"
            default: "the \(variant.rawValue) image of photo \(index) is not available yet (it is \(state.name))"
            }
        case .renderFailed(let index, let error):
            "photo \(index) could not be rendered: \(error)"
        case .notFailed(let index, let state):
            "photo \(index) has not failed (it is \(state.name)): there is nothing to try again"
        }
    }
}
