import Dispatch

/// The process-wide bounds a pipeline's operations take a permit of before they work: transfers and
/// filtrations across the server's list and every lab lane, whatever each pipeline's own queue widths.
public struct SharedBounds: Sendable {
    /// Transfers running at once.
    public let transfers: WorkPermits
    /// Filtrations (decode, sepia, encode) running at once: the cores the pipelines may keep busy.
    public let filtrations: WorkPermits
    /// Whether the pipeline is the server's own list or a guest limited to the unreserved permits.
    public var holder: WorkPermits.Holder
    /// Which pipeline takes the permits: guests' permits are shared fairly between owners.
    public var owner: Int = 0

    /// Bounds of `transfers` and `filtrations` permits, taken as `holder`.
    public init(transfers: WorkPermits, filtrations: WorkPermits, holder: WorkPermits.Holder) {
        self.transfers = transfers
        self.filtrations = filtrations
        self.holder = holder
    }

    /// The same bounds, taken as `holder` on behalf of `owner`.
    public func taken(as holder: WorkPermits.Holder, owner: Int = 0) -> SharedBounds {
        var bounds = self
        bounds.holder = holder
        bounds.owner = owner
        return bounds
    }

    func permits(for queue: QueueKind) -> WorkPermits {
        queue == .download ? transfers : filtrations
    }

    /// Runs `work` once a filtration permit is held, and gives the permit back after: filter work that is
    /// not an operation of the queues (a full-size render) counts against the same bound. Blocks
    /// this (filtration queue) thread while it waits, as an operation waiting for its permit does.
    func withFiltrationPermit<T>(_ work: () -> T) -> T {
        let granted = DispatchSemaphore(value: 0)
        // Never withdrawn, so the callback only ever says granted.
        if case .waiting = filtrations.acquire(holder, owner: owner, whenDecided: { _ in granted.signal() }) {
            granted.wait()
        }
        defer { filtrations.release(holder, owner: owner) }
        return work()
    }
}
