import Foundation
import Locking

/// How often a failed photo may be tried again: per client address, `perMinute` retries (a token
/// bucket); per photo, a back-off that doubles from `firstWait` to `longestWait` between retries, so
/// a photo that fails after fetching megabytes cannot be made to fetch them again and again, by one
/// client or by many. A photo left alone for `forgetAfter` starts again from `firstWait`.
///
/// Lock order: a leaf.
final class RetryLimits: Sendable {
    static let firstWait: Duration = .seconds(1)
    static let longestWait: Duration = .seconds(60)
    static let forgetAfter: Duration = .seconds(600)

    private struct BackOff {
        var retries: Int
        var last: ContinuousClock.Instant
    }

    private let clients: ClientRateLimiter
    private let photos = Locked<[Int: BackOff]>([:])

    init(perMinute: Int) {
        clients = ClientRateLimiter(perMinute: perMinute)
    }

    /// Retries per client address per minute.
    var perMinute: Int { clients.perMinute }

    /// The wait before the retry after `retries` retries: `firstWait`, doubled each time, at most `longestWait`.
    static func wait(after retries: Int) -> Duration {
        guard retries > 0 else { return .zero }
        return min(longestWait, firstWait * (1 << min(retries - 1, 16)))
    }

    /// Takes a retry of photo `index` for `client`: nil when allowed, else why not and the seconds to wait.
    /// A refused retry takes nothing: neither the client's token nor the photo's turn.
    func admit(_ index: Int, for client: String, now: ContinuousClock.Instant = .now) -> (reason: String, seconds: Int)? {
        if let wait = takeTurn(of: index, now: now, take: false) { return refusal(of: index, waiting: wait) }
        if let seconds = clients.admit(client, now: now) {
            return ("too many retries from \(client) (at most \(perMinute) a minute); try again in \(seconds) s", seconds)
        }
        // Another request may have taken the photo's turn since the look above.
        return takeTurn(of: index, now: now, take: true).map { refusal(of: index, waiting: $0) }
    }

    /// The wait left before photo `index` may be retried, or nil when it may be now (its turn taken if `take`).
    private func takeTurn(of index: Int, now: ContinuousClock.Instant, take: Bool) -> Duration? {
        photos.withLock { photos in
            if photos.count > 100_000 { photos = photos.filter { now - $0.value.last < Self.forgetAfter } }
            var backOff = photos[index].flatMap { now - $0.last < Self.forgetAfter ? $0 : nil } ?? BackOff(retries: 0, last: now)
            let due = backOff.last + Self.wait(after: backOff.retries)
            guard now >= due else { return due - now }
            if take {
                backOff.retries += 1
                backOff.last = now
                photos[index] = backOff
            }
            return nil
        }
    }

    private func refusal(of index: Int, waiting wait: Duration) -> (reason: String, seconds: Int) {
        let seconds = max(1, Int((wait / .seconds(1)).rounded(.up)))
        return ("photo \(index) was tried again moments ago; it may be tried again in \(seconds) s", seconds)
    }
}
