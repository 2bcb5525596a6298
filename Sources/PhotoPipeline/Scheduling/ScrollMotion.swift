/// How one viewer moves through its list, measured from its viewport reports as they arrive (the
/// server's clock, not the page's timers): reading (slow, short moves in one direction) or flicking
/// (fast, or a jump of more than a screen), and how far ahead a reader should be read for.
///
/// Glide's `ListPreloader` reads a fixed number of items ahead in the direction of travel; Chromium
/// starts lazy images 1250-2500 px (15-30 of our rows) before they are on screen. Here the depth follows
/// the measured pace: what the reader will have reached `lookahead` from now, at least the strategy's
/// margin and half a screen (the next short move), at most two screens.
///
/// A value type with no lock of its own: its controller keeps it behind a mutex.
public struct ScrollMotion: Sendable {
    /// What the reports say the viewer is doing.
    public enum Kind: Sendable, Equatable {
        /// No move seen yet (the first screen), or the last move is too long ago to say.
        case resting
        /// Slow moves of at most a screen, in `direction` (+1 down, -1 up).
        case reading(direction: Int)
        /// A move faster than `flickScreensPerSecond`, or longer than a screen: the next stop is anywhere.
        case flicking
    }

    /// One report: when it arrived and the first visible row.
    struct Sample: Sendable {
        var at: ContinuousClock.Instant
        var first: Int
    }

    /// A move faster than this many screens a second is a flick. A reader's smooth half-screen move
    /// (300 ms) runs at about 1.7; a flick through a list at tens.
    public static let flickScreensPerSecond = 3.0
    /// How often the page reports while it scrolls (`Public/viewport.js`).
    public static let reportInterval = 0.1
    /// How far back the pace is measured from.
    public static let window: Duration = .seconds(5)
    /// How long ahead a reader's rows should be ready: a row takes about a second from request to
    /// screen (origin latency, transfer, filter), and the next stop but one is in view by then.
    public static let lookahead = 4.0

    private var samples: [Sample] = []
    /// Direction of the last reading move, kept across pauses (a reader pauses at every stop).
    private var lastDirection = 1
    /// The classification of the last move; a stop keeps the kind of the move that led to it.
    public private(set) var kind: Kind = .resting

    public init() {}

    /// Takes in a report of `visible` rows at `now`; returns what the viewer is doing.
    @discardableResult
    public mutating func observe(_ visible: ClosedRange<Int>, at now: ContinuousClock.Instant) -> Kind {
        let screen = max(1, visible.count)
        samples.removeAll { now - $0.at > Self.window }
        defer { samples.append(Sample(at: now, first: visible.lowerBound)) }
        guard let previous = samples.last else {
            kind = .resting
            return kind
        }
        let moved = visible.lowerBound - previous.first
        guard moved != 0 else { return kind }
        // The page reports about every `reportInterval` while it scrolls: a move seen after a longer
        // quiet began at most that long ago, and reports that bunch up in transit are as far apart
        // as the page sent them.
        let seconds = min(max(Self.seconds(now - previous.at), Self.reportInterval), 2.5 * Self.reportInterval)
        let screensPerSecond = Double(abs(moved)) / Double(screen) / seconds
        if abs(moved) > screen || screensPerSecond > Self.flickScreensPerSecond {
            kind = .flicking
            samples.removeAll()  // a flick's pace says nothing about the reading that may follow
        } else {
            lastDirection = moved > 0 ? 1 : -1
            kind = .reading(direction: lastDirection)
        }
        return kind
    }

    /// Rows to read ahead of `visible` while reading, given the strategy's `margin`; (direction, depth).
    /// Resting: `margin`, at least half a screen, downwards at the start (the way a list is read).
    /// Flicking: nothing.
    public func readAhead(of visible: ClosedRange<Int>, margin: Int, at now: ContinuousClock.Instant) -> (direction: Int, depth: Int) {
        let screen = max(1, visible.count)
        let least = max(margin, (screen + 1) / 2)
        switch kind {
        case .flicking:
            return (lastDirection, 0)
        case .resting:
            return (lastDirection, least)
        case .reading(let direction):
            guard let oldest = samples.first(where: { now - $0.at <= Self.window }) else { return (direction, least) }
            let span = Self.seconds(now - oldest.at)
            let pace = span > 0.25 ? Double(abs(visible.lowerBound - oldest.first)) / span : 0
            let depth = Int((pace * Self.lookahead).rounded(.up))
            return (direction, min(2 * screen, max(least, depth)))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
