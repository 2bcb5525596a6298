/// When an event was made, small enough to ride on every queued and remembered event (4 bytes, in
/// `OutgoingEvent`'s padding: a viewer keeps 512 in its history): tenths of a millisecond since the
/// process's first stamp, wrapping every five days. An age is taken by wrapping subtraction, so only
/// an age over five days comes out wrong. `unknown` (0) for events not made by the pipeline.
struct EventStamp: Sendable, Equatable {
    /// The tick, 0 when unknown.
    let ticks: UInt32

    static let unknown = EventStamp(ticks: 0)
    private static let epoch = ContinuousClock.now
    private static let tick = Duration.microseconds(100)

    private init(ticks: UInt32) {
        self.ticks = ticks
    }

    /// The stamp of `instant` (an instant before the epoch wraps, which subtraction undoes).
    init(_ instant: ContinuousClock.Instant) {
        let ticks = UInt32(truncatingIfNeeded: Int64((instant - Self.epoch) / Self.tick))
        // 0 is `unknown`: the one real tick that lands there counts as the next.
        self.ticks = ticks == 0 ? 1 : ticks
    }

    static var now: EventStamp { EventStamp(.now) }

    /// How long before `now` it was made; nil when unknown.
    func age(at now: EventStamp) -> Duration? {
        guard ticks != 0 else { return nil }
        return Self.tick * Int(now.ticks &- ticks)
    }
}
