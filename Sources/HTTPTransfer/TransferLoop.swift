public import Foundation
import Locking

/// Runs HTTP(S) GETs on one thread that drives a shared libcurl multi handle, so a transfer in
/// flight holds no thread of its own.
public final class TransferLoop: Sendable {
    /// What a caller hands to the loop thread to start one transfer.
    struct Request: Sendable {
        let id: UInt64
        let url: String
        let limits: TransferLimits
        let resumingFrom: ResumableData?
        let progress: @Sendable (TransferProgress) -> Void
        let arrived: ArrivedBytesWatcher?
        let completion: @Sendable (TransferOutcome) -> Void
    }

    private enum Command: Sendable {
        case start(Request)
        case cancel(UInt64)
        case shutdown
    }

    private struct State {
        var commands: [Command] = []
        var lastID: UInt64 = 0
        var activeTransfers = 0
        var isShutDown = false
        /// Lets `shutdown()` tell whether it runs on the loop thread.
        var loopThread: pthread_t?
    }

    /// The process-wide loop, created (and its thread started) on first use.
    public static let shared = TransferLoop()

    private let multi: CurlMulti
    private let state = Locked(State())
    /// Left when the loop thread exits, so `shutdown()` can wait for it.
    private let exited = DispatchGroup()

    /// Starts a loop whose thread is called `name`.
    public init(name: String = "transfer-loop") {
        do {
            multi = try CurlMulti()
        } catch {
            // Only fails when out of memory or when libcurl's TLS library cannot start.
            fatalError("cannot set up libcurl: \(error)")
        }
        exited.enter()
        // The thread keeps the loop alive until `shutdown()` ends it.
        let thread = Thread { [self] in
            run()
            exited.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Transfers started and not yet completed; any thread.
    public var activeTransfers: Int {
        state.withLock { $0.activeTransfers }
    }

    /// Starts a GET of `url`; any thread.
    ///
    /// `progress` and `completion` are called on the loop thread, so they must return quickly;
    /// `completion` is called exactly once. After `shutdown()`, `completion` gets `.cancelled` at once,
    /// on the caller's thread.
    @discardableResult
    public func start(
        _ url: String,
        limits: TransferLimits = .init(),
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        completion: @escaping @Sendable (Result<Data, TransferError>) -> Void
    ) -> TransferHandle {
        start(url, limits: limits, resumingFrom: nil, progress: progress) { completion($0.result) }
    }

    /// Starts a GET of `url` that continues `resumingFrom` when the origin still has that version
    /// (`Range: bytes=N-` with `If-Range`), and whose outcome says what to resume from if it is
    /// cancelled; any thread. A 206 continues the bytes, a 200 starts over, and bytes of two versions
    /// are never mixed. `arrived`, when given, is offered the body so far (a view, not a copy) at progress
    /// reports it wants. Otherwise as `start(_:limits:progress:completion:)`.
    @discardableResult
    public func start(
        _ url: String,
        limits: TransferLimits = .init(),
        resumingFrom: ResumableData?,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        arrived: ArrivedBytesWatcher? = nil,
        completion: @escaping @Sendable (TransferOutcome) -> Void
    ) -> TransferHandle {
        let id: UInt64? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.lastID += 1
            state.activeTransfers += 1
            state.commands.append(.start(Request(
                id: state.lastID, url: url, limits: limits, resumingFrom: resumingFrom, progress: progress,
                arrived: arrived, completion: completion)))
            return state.lastID
        }
        guard let id else {
            completion(TransferOutcome(result: .failure(.cancelled), resumableData: resumingFrom))
            return TransferHandle(loop: self, id: 0)
        }
        multi.wakeup()
        return TransferHandle(loop: self, id: id)
    }

    /// Cancels every transfer and stops the loop thread; idempotent, any thread.
    ///
    /// Returns once the thread has exited and every completion has been called, unless called from
    /// the loop thread itself (from a callback), where it cannot wait for itself. Blocks the calling
    /// thread meanwhile: from async code use `shutdownAndWait()`.
    public func shutdown() {
        requestShutdown()
        let isLoopThread = state.withLock { $0.loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !isLoopThread { exited.wait() }
    }

    /// `shutdown()` for async callers: suspends until the loop thread has exited and every
    /// completion has been called, without holding one of Swift concurrency's few threads.
    public func shutdownAndWait() async {
        requestShutdown()
        await withCheckedContinuation { continuation in
            exited.notify(queue: .global()) { continuation.resume() }
        }
    }

    private func requestShutdown() {
        let isFirst = state.withLock { state in
            defer { state.isShutDown = true }
            guard !state.isShutDown else { return false }
            state.commands.append(.shutdown)
            return true
        }
        if isFirst { multi.wakeup() }
    }

    /// Asks the loop thread to abort transfer `id`; any thread.
    func cancel(_ id: UInt64) {
        let queued = state.withLock { state in
            guard !state.isShutDown else { return false }
            state.commands.append(.cancel(id))
            return true
        }
        if queued { multi.wakeup() }
    }

    /// The loop thread's body: runs commands, drives libcurl, and sleeps in `poll` until there is work.
    private func run() {
        state.withLock { $0.loopThread = pthread_self() }
        var transfers: [UInt64: Transfer] = [:]

        func complete(_ transfer: Transfer, _ error: TransferError?) {
            state.withLock { $0.activeTransfers -= 1 }
            transfer.finish(error)
        }

        func abortAll(_ error: TransferError) {
            for transfer in transfers.values {
                transfer.abort(from: multi)
                complete(transfer, error)
            }
            transfers.removeAll()
        }

        while true {
            let commands = state.withLock { state in
                defer { state.commands.removeAll() }
                return state.commands
            }
            for command in commands {
                switch command {
                case .start(let request):
                    let transfer = Transfer(request)
                    do throws(TransferError) {
                        try transfer.start(on: multi)
                        transfers[request.id] = transfer
                    } catch {
                        complete(transfer, error)
                    }
                case .cancel(let id):
                    guard let transfer = transfers.removeValue(forKey: id) else { continue }
                    transfer.abort(from: multi)
                    complete(transfer, .cancelled)
                case .shutdown:
                    abortAll(.cancelled)
                    return
                }
            }
            do throws(TransferError) {
                try multi.perform()
                for (tag, error) in multi.takeFinished() {
                    guard let transfer = transfers[tag], !transfer.startsOver(after: error, on: multi) else { continue }
                    transfers[tag] = nil
                    complete(transfer, error)
                }
                // libcurl shortens the wait to its own next timeout; `wakeup()` ends it for new commands.
                try multi.poll(timeout: .seconds(5))
            } catch {
                // A broken multi handle (out of memory) would otherwise leave every transfer hanging.
                abortAll(error)
            }
        }
    }
}
