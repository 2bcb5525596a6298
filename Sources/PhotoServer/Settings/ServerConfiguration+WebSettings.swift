import Foundation
import Logging
import PhotoCluster
import PhotoWeb

extension ServerConfiguration {
    /// Listening, the page's files, the limits a public demo needs against hostile clients, HTTPS,
    /// logging and the other instances.
    static let webSettings: [Setting] = [
        .text("host", "Address to listen on (`::` for IPv6 and IPv4).", at: \.web.host),
        Setting("port", "Port to listen on; `0` picks any free port.", values: .number(0...65_535, nil) { $1.web.port = UInt16($0) }) {
            .number(Int($0.web.port))
        },
        Setting("base-path", "Path prefix for the page's links behind a proxy, e.g. /demo.", values: .text(choices: []) { path, configuration in
            guard path.isEmpty || (path.hasPrefix("/") && !path.hasSuffix("/")) else {
                throw SettingError("--base-path must start with / and not end with one, got \(path)")
            }
            configuration.web.basePath = path
        }) { _ in .words("none") },
        .text("public-dir", "The page's static files.", at: \.web.publicDirectory),
        .text("templates-dir", "The Mustache templates.", at: \.web.templatesDirectory),
        .number("max-viewers", "Viewers at once; more get `503`; a viewer whose stream has closed gives its place to a new one at once.", 1...1_000_000, at: \.web.maxViewers),
        .number(
            "viewers-per-client",
            "Viewers one client (an IPv4 address, an IPv6 /64) holds at once; past it, its own viewer whose stream went away longest ago makes room, else `429` with the reason.",
            1...1_000_000, at: \.web.viewersPerClient, otherwise: "a quarter of --max-viewers, at least 1"),
        .number("viewers-per-minute", "New viewers (`GET /`, `POST /api/viewers`) per client address per minute; more get `429` with `Retry-After`.", 1...1_000_000, at: \.web.viewersPerMinute),
        .time("viewer-connect-timeout", "A viewer that never opens its event stream is forgotten after this.", 1...3_600, at: \.web.viewerConnectTimeout),
        .number(
            "retries-per-minute",
            "Retries of failed photos (`POST /api/photos/N/retry`) per client address per minute; more get `429` with `Retry-After`. Each photo also waits between its retries, 1 s doubling to 60 s, whoever asks.",
            1...1_000_000, at: \.web.retriesPerMinute),
        .number(
            "followers-per-presentation",
            "Viewers following one presentation (`/?follow=CODE`); one more gets `429`. The first `--room-size` pages a follow link opens do not count against `--viewers-per-minute`.",
            1...1_000_000, at: \.web.followersPerPresentation),
        .number(
            "room-size",
            "Followers a presentation's link admits without counting them against their address's `--viewers-per-minute` (a room behind one NAT); past it a follow link is a new viewer like any page. A room's followers also bring their address their pages' shared streams and connections.",
            0...1_000_000, page: "presenting.md", at: \.web.roomSize),
        .number("presentations-per-client", "Presentations one client runs at once; one more gets `429`.", 1...1_000, at: \.web.presentationsPerClient),
        .number("max-labs", "Labs at once (`/lab`); more get `503`.", 0...64, page: "lab.md", at: \.web.maxLabs),
        .number(
            "labs-per-client", "Labs one client runs at once; past it its own lab whose page left longest ago ends to make room, else `429`.",
            1...64, at: \.web.labsPerClient, otherwise: "a quarter of --max-labs, at least 1"),
        .number(
            "max-lab-image-transfers",
            "Photos of the lab's browser lane (`/lab/images/...`, as slow as 1,000 bytes/s) sent at once, each holding one photo's bytes; more get `503` with the reason.",
            1...100_000, at: \.web.maxLabImageTransfers),
        .number(
            "shared-streams-per-client",
            "Shared event streams (`GET /events/shared`) one client holds open at once; past it its own stream that has carried no viewer for longest is closed to make room, else `429` with the reason. A page (all its tabs' viewers) or a lab holds one.",
            1...1_000_000, at: \.web.sharedStreamsPerClient),
        .number(
            "unsent-events-budget-mb",
            "Events queued for viewers and not yet read, across all viewers (each stream is cut off past 256 KiB unread on its own); past it a new event stream gets `503` with the reason.",
            1...65_536, .mebibytes, at: \.web.unsentEventsBudgetBytes, scale: 1_048_576),
        .number("max-header-bytes", "A larger request head (request line and headers) gets `431` and the connection is closed.", 1_024...1_048_576, .bytes, at: \.web.maxHeaderBytes),
        .number("max-url-length", "A longer request target gets `414`.", 256...1_048_576, .bytes, at: \.web.maxURLLength),
        .number("max-body-bytes", "A larger request body gets `413`.", 1_024...104_857_600, .bytes, at: \.web.maxRequestBodyBytes),
        .time(
            "idle-timeout",
            "Time for a connection to send a complete request (however slowly it drips bytes) before it is closed; a response being written, such as an event stream, does not count.",
            1...3_600, at: \.web.idleTimeout),
        .time(
            "send-timeout",
            "Time a connection may go without its reader taking any of a response (NIO holds past the 16 KiB write buffer's high mark and nothing drains it) before it is closed: a reader that stalls, or trickles a byte now and then, does not keep its connection.",
            1...3_600, at: \.web.sendTimeout),
        .number(
            "max-connections",
            "Open connections at most (the soft open-files limit is raised to the hard one at start; the cap in force is logged): past it, accepting pauses until a connection closes.",
            1...10_000_000, at: \.web.maxConnections, otherwise: "the open-files limit - 256"),
        .number(
            "connections-per-client",
            "Open connections per client address (a browser uses six at most); past it a new connection is answered `429` with the reason and closed, so one client cannot hold every connection with slow reads or slow lab transfers. A `--trusted-proxy`'s connections are not counted (they carry many clients).",
            1...10_000_000, at: \.web.connectionsPerClient),
        Setting(
            "trusted-proxy", "Addresses or CIDR prefixes, comma-separated, whose `X-Forwarded-For` (its last entry) names the client.",
            values: .text(choices: []) { $1.web.trustedProxies = Self.list($0) }) { _ in .words("none") },
        Setting(
            "tls-cert", "PEM certificate chain (with `--tls-key`): the port speaks HTTPS only, HTTP/2 and HTTP/1.1 by ALPN; SIGHUP reads it again.",
            page: "https.md", values: .text(choices: [], apply: nil)) { _ in .words("none, plain HTTP") },
        Setting("tls-key", "PEM private key of `--tls-cert`.", values: .text(choices: [], apply: nil)) { _ in .words("none") },
        Setting(
            "http-redirect-port", "With TLS, a plain-HTTP port answering every request `308` to the same path on HTTPS.",
            values: .number(0...65_535, nil) { $1.web.httpRedirectPort = UInt16($0) }) { _ in .words("none") },
        .number(
            "hsts-max-age", "With TLS, `Strict-Transport-Security: max-age=N` on every response (`0`: none).",
            0...63_072_000, .seconds, at: \.web.hstsMaxAge),
        .number("max-streams", "HTTP/2 streams open at once per connection (more are refused, `REFUSED_STREAM`).", 1...10_000, at: \.web.maxStreams),
        .number(
            "streams-per-client",
            "HTTP/2 streams one client (an IPv4 address, an IPv6 /64) holds open at once across all of its connections; one more is reset `REFUSED_STREAM` before it is read. A browser puts all its tabs on one connection (at most `--max-streams`); a `--trusted-proxy`'s streams are not counted.",
            1...10_000_000, at: \.web.streamsPerClient, otherwise: "twice --max-streams"),
        Setting("log-level", "How much is logged; logs go to stderr.", values: .text(choices: Logger.Level.allCases.map(\.rawValue)) {
            $1.web.logLevel = Logger.Level(rawValue: $0) ?? $1.web.logLevel
        }) { .words($0.web.logLevel.rawValue) },
        .text(
            "database-url", "`postgres://user:password@host:port/database` runs this instance as one of several.",
            page: "cluster.md", at: \.cluster.databaseURL, otherwise: "none, everything in this process"),
        Setting(
            "instance-name", "This instance's name in `/healthz` and the edge's sticky cookie (up to 64 letters, digits, - and _).",
            values: .text(choices: []) { name, configuration in
                guard name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                    throw SettingError("--instance-name must be up to 64 letters, digits, - or _, got \(name)")
                }
                configuration.cluster.instanceName = name
            }) { _ in .words("random") },
    ]
}
