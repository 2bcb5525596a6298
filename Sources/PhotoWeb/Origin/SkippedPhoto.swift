/// A file of the user's photo folder that is not listed, and why (the `source` event's `skipped`).
public struct SkippedPhoto: Sendable, Equatable, Encodable {
    /// The file's name in the folder.
    public var file: String
    /// Why it is not listed, in words a person understands.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}
