/// Unsent events in order, where an event with a coalescing key replaces the unsent one with the
/// same key (moving to the back: it is the newest now).
struct EventQueue {
    private var events: [OutgoingEvent?] = []
    private var head = 0
    private var positions: [OutgoingEvent.CoalescingKey: Int] = [:]
    private(set) var count = 0
    /// The bytes of the unsent events' payloads: what the queue holds, whatever the list's length.
    private(set) var bytes = 0

    /// Events' places held now, taken or not (for tests and the memory figures).
    var capacity: Int { events.capacity }

    init() {}

    init(_ events: [OutgoingEvent]) {
        events.forEach { append($0) }
    }

    mutating func append(_ event: OutgoingEvent) {
        if let key = event.key, let position = positions[key] {
            bytes -= events[position]?.data.count ?? 0
            events[position] = nil
            count -= 1
        }
        if let key = event.key { positions[key] = events.count }
        events.append(event)
        count += 1
        bytes += event.data.count
    }

    mutating func popFirst() -> OutgoingEvent? {
        while head < events.count {
            let event = events[head]
            events[head] = nil
            head += 1
            if let event {
                if let key = event.key { positions[key] = nil }
                count -= 1
                bytes -= event.data.count
                // A writer that keeps up takes everything: its storage goes with it, rather than a
                // few hundred places kept for each of a crowd's thousand viewers.
                if count == 0 { removeAll() } else { compactIfWorthIt() }
                return event
            }
        }
        return nil
    }

    mutating func removeAll() {
        events.removeAll()
        positions.removeAll()
        head = 0
        count = 0
        bytes = 0
    }

    /// Drops the consumed front once it is most of the storage, so a long-lived stream does not grow.
    private mutating func compactIfWorthIt() {
        guard head > 256, head * 2 > events.count else { return }
        let removed = head
        events.removeFirst(removed)
        head = 0
        positions = positions.mapValues { $0 - removed }
    }
}
