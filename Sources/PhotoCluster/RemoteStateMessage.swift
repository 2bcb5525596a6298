import Foundation
import PhotoPipeline

/// One photo's state as it travels between instances: the photo by its cache key (every instance
/// orders the same list, but the key says which photo whatever the order), the state by its name.
struct RemoteStateMessage: Codable, Sendable {
    /// The photo's cache key.
    var k: String
    /// The state's name (`PhotoRecordState.name`).
    var s: String
    /// Download progress, 0...1.
    var p: Double?
    /// A failure's reason and detail.
    var r: String?
    var d: String?

    init(cacheKey: String, state: PhotoRecordState) {
        k = cacheKey
        s = state.name
        switch state {
        case .downloading(let progress): p = progress
        case .failed(let reason, let detail): (r, d) = (reason, detail)
        default: break
        }
    }

    /// The state, or nil for a name this instance does not know.
    var state: PhotoRecordState? {
        switch s {
        case "new": .new
        case "downloading": .downloading(progress: p)
        case "downloaded": .downloaded
        case "filtering": .filtering
        case "filtered": .filtered
        case "failed": .failed(reason: r ?? "failed elsewhere", detail: d ?? "")
        default: nil
        }
    }

    var json: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    init?(json: Substring) {
        guard let message = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = message
    }
}
