import Locking

/// What each viewer saw and what its own work cost, kept in the `WorkLedger`: the one record behind
/// the server's waste (`stats`) and each viewer's (`queueStatus(for:)`).
extension PhotoPipeline {
    /// `viewer` saw rows `rows` (its controller says when: at a stop, or while reading, never in a
    /// flick), so work on them is not waste, for it or for the server.
    public func see(_ rows: ClosedRange<Int>, by viewer: ViewerID) {
        guard !entries.isEmpty, rows.upperBound >= 0, rows.lowerBound < entries.count else { return }
        let rows = rows.clamped(to: 0...(entries.count - 1))
        core.lock.withLock { $0.ledger.markSeen(rows, by: viewer) }
    }

    /// Forgets what `viewer`'s own work cost: it left for good. (`removeViewer` keeps it, for a viewer
    /// that hides its tab or changes its strategy and goes on.) The operations still running for it
    /// no longer count it, so their ends do not bring its record back.
    public func forgetWork(of viewer: ViewerID) {
        core.lock.withLock { state in
            state.requesters.remove(viewer)
            state.ledger.forget(viewer)
        }
    }
}
