import Foundation
import Locking
import PhotoTransport

/// Requests of one kind per client address (new viewers, retries): a token bucket of `perMinute`
/// tokens, refilled evenly, so one client cannot fill `--max-viewers` or make the origin fetch a photo
/// again and again however fast it asks. Clients are keyed by `ClientAddress.group` (an IPv6 /64 is one). Buckets that are full again are forgotten, so memory follows
/// the clients of the last minute.
///
/// Lock order: a leaf.
final class ClientRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant

        /// The tokens at `now`: refilled at `rate` a second since the last update, up to `capacity`.
        func tokens(at now: ContinuousClock.Instant, rate: Double, capacity: Double) -> Double {
            min(capacity, tokens + (now - updated) / .seconds(1) * rate)
        }
    }

    let perMinute: Int
    private let buckets = Locked<[String: Bucket]>([:])

    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// Takes a token for `client`; nil when allowed, else the seconds until one is free.
    func admit(_ address: String, now: ContinuousClock.Instant = .now) -> Int? {
        let client = ClientAddress.group(address)
        let (rate, capacity) = (Double(perMinute) / 60, Double(perMinute))
        return buckets.withLock { buckets -> Int? in
            if buckets.count > 100_000 {
                buckets = buckets.filter { $0.value.tokens(at: now, rate: rate, capacity: capacity) < capacity }
            }
            var bucket = buckets[client] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = bucket.tokens(at: now, rate: rate, capacity: capacity)
            bucket.updated = now
            defer { buckets[client] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Gives back the token `admit` took for `address`, for a request that was then not served here
    /// (handed on to be decided again: `PageHandler.ready`).
    func refund(_ address: String) {
        let client = ClientAddress.group(address)
        buckets.withLock { buckets in
            guard var bucket = buckets[client] else { return }
            bucket.tokens = min(Double(perMinute), bucket.tokens + 1)
            buckets[client] = bucket
        }
    }
}
