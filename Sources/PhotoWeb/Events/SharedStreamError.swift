import Foundation

/// Why a viewer cannot join or leave a shared event stream.
enum SharedStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No open stream has this id (it ended when its connection closed, or never was).
    case ended(String)
    /// The stream carries as many viewers as it may.
    case full(String, maxViewers: Int)
    /// The viewer is not carried by this stream.
    case notCarried(stream: String, viewer: String)

    var description: String {
        switch self {
        case .ended(let id):
            "no open event stream \(id): it ended (its connection closed); open GET /events/shared again and join its viewers"
        case .full(let id, let maxViewers):
            "event stream \(id) carries its most viewers (\(maxViewers)); open another stream for this viewer"
        case .notCarried(let stream, let viewer):
            "viewer \(viewer) is not carried by event stream \(stream)"
        }
    }
}

extension APIError {
    /// A shared stream's refusal, in HTTP terms.
    init(_ error: SharedStreamError) {
        switch error {
        case .ended, .notCarried: self = .notFound(error.description)
        case .full: self = .conflict(error.description)
        }
    }
}
