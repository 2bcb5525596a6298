public import Foundation

/// Who looks at a body before it has all arrived (to show a preview of it): at each progress report
/// `wants` says whether the bytes so far are worth a look now, and `take` receives it. Both
/// run on the loop thread, so they must return quickly; never at the last byte (the body follows).
public struct ArrivedBytesWatcher: Sendable {
    /// Whether the bytes so far are wanted, given the progress now.
    public var wants: @Sendable (TransferProgress) -> Bool
    /// Receives the body so far (resumed bytes included): a view of the transfer's own bytes, not a copy.
    public var take: @Sendable (Data) -> Void

    /// A watcher that takes the bytes whenever `wants` says so.
    public init(wants: @escaping @Sendable (TransferProgress) -> Bool, take: @escaping @Sendable (Data) -> Void) {
        self.wants = wants
        self.take = take
    }
}
