import Foundation

extension UnsentEventBytes {
    /// Lets a new stream (or a viewer joining a shared one) open, or says why not: a `503` while
    /// the unsent bytes are past the budget.
    func admitStream() throws(APIError) {
        guard admitsNewStream else {
            throw .unavailable(
                "viewers are not reading their events: \(bytes / 1_048_576) MiB unread, past the server's budget of \(budget / 1_048_576) MiB; try again shortly")
        }
    }
}
