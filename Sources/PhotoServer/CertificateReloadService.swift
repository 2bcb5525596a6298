import Dispatch
import Foundation

/// Runs `reload` on each SIGHUP (the usual "read your files again"), one at a time, until `stop()`.
final class ReloadSignal {
    private let source: any DispatchSourceSignal
    private let worker: Task<Void, Never>
    private let trigger: AsyncStream<Void>.Continuation

    init(reload: @escaping @Sendable () async -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        trigger = continuation
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
        worker = Task {
            for await _ in stream { await reload() }
        }
    }

    func stop() {
        source.cancel()
        trigger.finish()
    }
}
