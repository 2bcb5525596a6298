import Foundation
import Locking

/// One lane's scroll stops and how long each took until every visible row was sepia (or failed):
/// the lab's time-to-visible, measured where the work happens.
///
/// A stop is timed from its report to the photo event that completes it; a stop left before it
/// completed is kept as abandoned. Only the last `kept` stops are kept, with counts of them all, so
/// a lane scrolled for hours (or a client alternating its rows) keeps a report of bounded size.
/// Lock order: a leaf (row states are read before it is taken).
final class LabStops: Sendable {
    /// Stops kept (the most recent), by default.
    static let keptByDefault = 100

    /// One stop, as `GET /api/labs/ID` shows it.
    struct Stop: Encodable, Equatable {
        var first: Int
        var last: Int
        /// Milliseconds from the report until every row was done; nil while waiting or when abandoned.
        var ms: Double?
        /// The viewer moved on before the rows were done.
        var abandoned: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(first, forKey: .first)
            try container.encode(last, forKey: .last)
            try container.encode(ms, forKey: .ms)  // null while waiting or when abandoned, as the contract says
            try container.encode(abandoned, forKey: .abandoned)
        }

        enum CodingKeys: String, CodingKey { case first, last, ms, abandoned }
    }

    /// Every stop the lane made, kept or not.
    struct Counts: Encodable, Equatable {
        /// Stops reported.
        var reported = 0
        /// Stops whose rows were all done.
        var timed = 0
        /// Stops left before their rows were done.
        var abandoned = 0
    }

    private struct State {
        var stops: [Stop] = []
        var counts = Counts()
        /// When the last stop was reported, while it waits.
        var openSince: ContinuousClock.Instant?
    }

    /// Stops kept at most: the most recent.
    let kept: Int
    private let state = Locked(State())

    init(kept: Int = LabStops.keptByDefault) {
        self.kept = max(1, kept)
    }

    /// The most recent stops (at most `kept`), oldest first.
    var all: [Stop] { state.withLock { $0.stops } }

    /// How many stops were reported, timed and abandoned in all.
    var counts: Counts { state.withLock { $0.counts } }

    /// The kept stops and the counts, read together.
    var recent: (stops: [Stop], counts: Counts) { state.withLock { ($0.stops, $0.counts) } }

    /// The viewer stopped on `rows`; `done` says whether they are all done already. A stop still
    /// waiting is abandoned. The same rows reported again are the same stop (the page reports a stop
    /// again when, say, a lane's viewer is renewed or the window is resized by nothing).
    func stopped(on rows: ClosedRange<Int>, done: Bool, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if let last = state.stops.last, last.first == rows.lowerBound, last.last == rows.upperBound { return }
            if state.openSince != nil, let last = state.stops.indices.last {
                state.stops[last].abandoned = true
                state.counts.abandoned += 1
            }
            state.stops.append(Stop(first: rows.lowerBound, last: rows.upperBound, ms: done ? 0 : nil, abandoned: false))
            if state.stops.count > kept { state.stops.removeFirst(state.stops.count - kept) }
            state.counts.reported += 1
            if done { state.counts.timed += 1 }
            state.openSince = done ? nil : now
        }
    }

    /// The waiting stop's rows, if one waits.
    var waiting: ClosedRange<Int>? {
        state.withLock { state in
            guard state.openSince != nil, let stop = state.stops.last else { return nil }
            return stop.first...stop.last
        }
    }

    /// The rows of the waiting stop `rows` are all done now: it ends (unless another stop replaced it).
    func completed(_ rows: ClosedRange<Int>, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            guard let since = state.openSince, let last = state.stops.indices.last,
                  state.stops[last].first == rows.lowerBound, state.stops[last].last == rows.upperBound else { return }
            let elapsed = now - since
            state.stops[last].ms = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
            state.counts.timed += 1
            state.openSince = nil
        }
    }
}
