import Prometheus

/// One kind of event stream in `/metrics`: how many are open (`classic_photos_event_streams`), and how
/// long each event took from the pipeline making it to its bytes written on a stream
/// (`classic_photos_event_delivery_seconds`). Told by the stream's writer.
final class EventStreamMeter: Sendable {
    private let open: Prometheus.Gauge
    private let delivery: DurationHistogram

    init(open: Prometheus.Gauge, delivery: DurationHistogram) {
        (self.open, self.delivery) = (open, delivery)
    }

    /// A stream began.
    func opened() { open.increment() }

    /// A stream ended.
    func closed() { open.decrement() }

    /// Events stamped `made` were written now: each one made by the pipeline has its age recorded.
    func written(_ made: some Sequence<EventStamp>) {
        let now = EventStamp.now
        for stamp in made {
            if let age = stamp.age(at: now) { delivery.record(age) }
        }
    }
}
