import PhotoPipeline

/// A channel's viewers as its forwarder sends to them: all of them (after dropped events each needs a
/// snapshot) and those that drive work (not following a presenter: the followers' relay serves those).
///
/// Worked out again only when the registry or who follows whom has changed, not per event: with a
/// thousand followers, filtering every viewer for every event was a tenth of the server's CPU.
struct ChannelAudience {
    private var seen: (viewers: UInt64, followers: UInt64)?
    private(set) var all: [ViewerSession] = []
    private(set) var drivers: [ViewerSession] = []
    /// Whether anyone follows a presenter (then the followers' relay is handed the events too).
    private(set) var hasFollowers = false

    mutating func refresh(for channel: PhotoChannel) {
        // The counts are read before the lists: a change in between is seen by the next refresh.
        let now = (viewers: channel.viewers.version, followers: channel.presentations?.followersVersion ?? 0)
        if let seen, seen == now { return }
        seen = now
        let presenters = channel.presentations?.presenterOfFollowers() ?? [:]
        all = channel.viewers.all(in: channel)
        hasFollowers = !presenters.isEmpty
        drivers = hasFollowers ? all.filter { presenters[$0.id] == nil } : all
    }
}
