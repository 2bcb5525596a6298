import Logging
import PhotoPipeline
import PhotoWeb
import PhotoServer

/// The settings that take text: each one's help, accepted values and default, written once.
enum TextSetting: String, Setting {
    case host
    case basePath = "base-path"
    case source
    case photosDir = "photos-dir"
    case strategy
    case cacheDir = "cache-dir"
    case allowSourceHost = "allow-source-host"
    case publicDir = "public-dir"
    case templatesDir = "templates-dir"
    case trustedProxy = "trusted-proxy"
    case logLevel = "log-level"
    case databaseUrl = "database-url"
    case instanceName = "instance-name"
    case tlsCert = "tls-cert"
    case tlsKey = "tls-key"

    /// The log levels, as `--log-level` takes them.
    static let logLevels = Logger.Level.allCases.map(\.rawValue)

    var summary: String {
        switch self {
        case .host: "Address to listen on."
        case .basePath: "Path prefix for the page's links behind a proxy, e.g. /demo."
        case .source: "Data source: a plist or JSON file path or http(s) URL."
        case .photosDir: "Serve this folder of JPEG/PNG photos as the origin."
        case .strategy: "How each viewer's work is driven."
        case .cacheDir: "Where sample photos and cached images are kept."
        case .allowSourceHost:
            "Loopback, private or link-local origins downloads may reach: HOST, HOST:PORT, ADDRESS/BITS or [IPV6]:PORT, comma-separated; the sample origin, --photos-dir and a --source URL's own origin are always allowed."
        case .publicDir: "The page's static files."
        case .templatesDir: "The Mustache templates."
        case .trustedProxy: "Proxies whose X-Forwarded-For names the client: addresses or CIDR prefixes, comma-separated."
        case .logLevel: "How much is logged (to stderr)."
        case .databaseUrl: "PostgreSQL shared with other instances, postgres://user:password@host:port/database."
        case .instanceName: "This instance's name among the others (up to 64 letters, digits, - and _)."
        case .tlsCert: "PEM certificate chain: serve HTTPS (HTTP/2 and HTTP/1.1); SIGHUP reads it again."
        case .tlsKey: "PEM private key of --tls-cert."
        }
    }

    var defaultValue: SettingDefault {
        let c = ServeDefaults.configuration
        switch self {
        case .host: return .words(c.web.host)
        case .basePath, .photosDir, .trustedProxy: return .words("none")
        case .source: return .words("the built-in sample origin")
        case .strategy: return .words(Defaults.strategy.name)
        case .cacheDir: return .words("~/.cache/classic-photos")
        case .allowSourceHost: return .words("none, public addresses only")
        case .publicDir: return .words(c.web.publicDirectory)
        case .templatesDir: return .words(c.web.templatesDirectory)
        case .logLevel: return .words(c.web.logLevel.rawValue)
        case .databaseUrl: return .words("none, everything in this process")
        case .instanceName: return .words("random")
        case .tlsCert: return .words("none, plain HTTP")
        case .tlsKey: return .words("none")
        }
    }

    /// The words it takes, where it takes only some.
    var rangeText: String {
        switch self {
        case .strategy: SchedulingStrategy.namesInWords
        case .logLevel: Self.logLevels.dropLast().joined(separator: ", ") + " or " + Self.logLevels.last!
        default: ""
        }
    }
}
