import Foundation

/// Identifies one viewer (a browser tab, a script): its viewport, scrolling state and wanted rows.
public struct ViewerID: Hashable, Sendable, CustomStringConvertible {
    /// The id as it travels in URLs and JSON.
    public let rawValue: String

    /// Wraps an id received from a client.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A new, unguessable id.
    public static func random() -> ViewerID {
        ViewerID(UUID().uuidString.lowercased())
    }

    public var description: String { rawValue }
}
