/// Why the sample origin could not start, or refused a request.
public enum SampleOriginError: Error, Sendable, CustomStringConvertible {
    /// A sample photo could not be generated or written.
    case generationFailed(String)
    /// A folder of the user's photos could not be served.
    case unreadableFolder(String, String)
    /// The HTTP server could not listen.
    case cannotListen(String)
    /// A photo request's simulated network (`?latency=&bandwidth=`) is not one it can give.
    case badQuery(String)

    public var description: String {
        switch self {
        case .generationFailed(let reason): "cannot generate the sample photos: \(reason)"
        case .unreadableFolder(let folder, let reason): "cannot serve photos from \(folder): \(reason)"
        case .cannotListen(let reason): "the sample origin cannot listen: \(reason)"
        case .badQuery(let reason): reason
        }
    }
}
