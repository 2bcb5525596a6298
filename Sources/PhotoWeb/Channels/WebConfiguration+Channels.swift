extension WebConfiguration {
    /// How the list's viewers are kept: dropped one by one when their streams are gone; others'
    /// operations reach them in batches (a crowd's timelines never hold up the rows a viewer waits for).
    var listChannel: PhotoChannel.Settings {
        PhotoChannel.Settings(
            heartbeat: heartbeatInterval, idleTimeout: viewerIdleTimeout, connectTimeout: viewerConnectTimeout,
            bystanderPace: .milliseconds(40))
    }

    /// How a lab lane's viewer is kept: a lane whose viewer is dropped ends its lab, so a page that
    /// left is noticed within `labIdleTimeout`; its stream is pinged often, since a write is how a
    /// page that left is noticed. Its photos fail as the list's do, and are not logged again.
    var labLaneChannel: PhotoChannel.Settings {
        PhotoChannel.Settings(
            heartbeat: min(heartbeatInterval, labIdleTimeout / 5), idleTimeout: labIdleTimeout,
            connectTimeout: viewerConnectTimeout, logsFailures: false)
    }
}
