/// How the pipeline's events travel to their subscribers.
///
/// The pipeline stamps each event (its sequence number and time) under its lock, so the stamps follow
/// the order of the changes, and hands them over once the lock is released, when two threads may
/// hand theirs over in either order. In one process `EventPublisher` fans them out in stamp order;
/// several instances would carry them through PostgreSQL (`NOTIFY`) to every instance's publisher.
protocol EventTransporting: Sendable {
    /// The next event: `kind`, stamped now. Takes no lock, so it may be called under the pipeline's.
    func stamp(_ kind: PipelineEvent.Kind) -> PipelineEvent
    /// Carries stamped `events` to every subscriber, all events in stamp order.
    func deliver(_ events: [PipelineEvent])
}
