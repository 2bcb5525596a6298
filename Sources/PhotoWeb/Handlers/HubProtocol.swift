/// What a page and the browser's event hub (`Public/event-hub.js`, the SharedWorker holding the one
/// shared stream of all its tabs) agree on, written once: both pages get it as `data-hub` (read by
/// `index.mustache`'s inline script and by `Public/config.js`), and the hub from a page's `hello`.
enum HubProtocol {
    /// The SharedWorker's name: every page of the browser reaches the same one.
    static let workerName = "classic-photos-events"
    /// A page holds the Web Lock `lockPrefix` + its viewer's id while it lives; released, the hub
    /// lets the viewer go.
    static let lockPrefix = "classic-photos-viewer:"

    /// `{"worker", "lockPrefix", "events"}`: the events are the names of the contract's events a
    /// viewer gets, which the hub relays and a page listens for.
    static var json: String {
        struct Table: Encodable {
            let worker: String
            let lockPrefix: String
            let events: [String]
        }
        let table = Table(worker: workerName, lockPrefix: lockPrefix, events: OutgoingEvent.Name.allCases.map(\.rawValue))
        return String(decoding: EventPayloads.json(table), as: UTF8.self)
    }
}
