/// The network a lab's photos are fetched over, simulated by the built-in origin for each request.
struct LabNetwork: Equatable, Sendable {
    /// Milliseconds before a response starts.
    var latencyMs: Int
    /// Bytes per second a response's body is sent at.
    var bandwidth: Int

    /// The built-in origin's own network, a lab's unless it asks for another.
    init(_ origin: any OriginServing) {
        latencyMs = origin.latencyMs
        bandwidth = origin.bandwidth
    }
}
