import Foundation

/// Runs blocking work (file reads, folder scans) on Dispatch's threads, never on the cooperative
/// pool that answers requests.
package enum Blocking {
    package static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
