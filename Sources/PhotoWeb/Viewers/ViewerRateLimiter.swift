import Foundation
import Synchronization

/// New viewers per client address: a token bucket of `perMinute` tokens, refilled evenly, so one
/// client cannot fill `--max-viewers` however fast it asks. Buckets that are full again are
/// forgotten, so memory follows the clients of the last minute.
///
/// Lock order: a leaf.
final class ViewerRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let perMinute: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// Takes a token for `client`; nil when allowed, else the seconds until one is free.
    func admit(_ client: String, now: ContinuousClock.Instant = .now) -> Int? {
        let rate = Double(perMinute) / 60
        return buckets.withLock { buckets -> Int? in
            if buckets.count > 100_000 { Self.forgetFull(&buckets, now: now, rate: rate, capacity: Double(perMinute)) }
            var bucket = buckets[client] ?? Bucket(tokens: Double(perMinute), updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            bucket.tokens = min(Double(perMinute), bucket.tokens + seconds * rate)
            bucket.updated = now
            defer { buckets[client] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    private static func forgetFull(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant, rate: Double, capacity: Double) {
        buckets = buckets.filter { _, bucket in
            let elapsed = now - bucket.updated
            return bucket.tokens + Double(elapsed.components.seconds) * rate < capacity
        }
    }
}
