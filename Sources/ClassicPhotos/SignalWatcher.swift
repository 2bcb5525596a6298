import Dispatch
import Foundation

/// Turns SIGTERM and SIGINT into one graceful stop, run once.
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]
    private let done: Task<Void, Never>
    private let trigger: AsyncStream<Void>.Continuation

    init(stop: @escaping @Sendable () async -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        trigger = continuation
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        done = Task {
            for await _ in stream {
                await stop()
                break
            }
        }
    }

    /// Waits for the stop to complete if a signal started one.
    func finished() async {
        trigger.finish()
        await done.value
        sources.forEach { $0.cancel() }
    }
}
