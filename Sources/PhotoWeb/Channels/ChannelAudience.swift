import PhotoPipeline

/// A channel's viewers as its forwarder sends to them: all of those that have opened their event
/// stream (after dropped events each needs a snapshot; one that has not gets a snapshot with its first
/// stream) and those that drive work (not following a presenter: the followers' relay serves those).
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
        let now = (viewers: channel.viewers.streamingVersion, followers: channel.presentations?.followersVersion ?? 0)
        if let seen, seen == now { return }
        seen = now
        let presenters = channel.presentations?.presenterOfFollowers() ?? [:]
        all = channel.viewers.streaming(in: channel)
        hasFollowers = !presenters.isEmpty
        drivers = hasFollowers ? all.filter { presenters[$0.id] == nil } : all
    }
}
