public import PhotoPipeline

/// The defaults and ranges the command line, the API and the page share, written once: the
/// settings' declarations (`ServerConfiguration.settings`) and the API validate against them, the
/// page and the lab page get them in their configuration, and a test checks the docs against them.
public enum Defaults {
    /// Rows read ahead beyond each edge of the viewport with the `prefetch` strategy.
    public static let prefetchMargin = 3
    /// The prefetch margins accepted, from the command line and from the API alike.
    public static let prefetchMargins = 0...50
    /// The strategy a viewer follows unless its tab chooses one.
    public static let strategy = SchedulingStrategy.prefetch(margin: prefetchMargin)
    /// A row's height in the page, in CSS pixels (the first screen's guess of rows on screen uses it too).
    public static let rowHeight = 80
    /// How often a page reports the rows on screen during a script's scroll, in ms: the pace the
    /// server's `ScrollMotion` measures from (its `reportInterval`).
    public static let reportIntervalMs = Int((ScrollMotion.reportInterval * 1_000).rounded())
    /// How long a request for a thumbnail still on its way (downloading, filtering) waits for it
    /// before it is answered 404 (the OpenAPI document states it).
    public static let thumbnailWait: Duration = .seconds(2)
}

extension SchedulingStrategy {
    /// Every strategy's name, as the command line, the API and the page spell it.
    public static let names = ["eager", "visible", "prefetch", "serial"]

    /// The strategy called `name` (one of `names`), with `margin` rows read ahead for `prefetch`;
    /// nil for any other name.
    public init?(name: String, margin: Int = Defaults.prefetchMargin) {
        switch name {
        case "eager": self = .eager
        case "visible": self = .visible
        case "prefetch": self = .prefetch(margin: margin)
        case "serial": self = .serial
        default: return nil
        }
    }

    /// The strategy's name on the command line and in the page.
    public var name: String {
        switch self {
        case .eager: "eager"
        case .visible: "visible"
        case .prefetch: "prefetch"
        case .serial: "serial"
        }
    }

    /// The margin the page shows: the prefetch margin, 0 for the others.
    var prefetchMarginForDisplay: Int {
        if case .prefetch(let margin) = self { return margin }
        return 0
    }

    /// The names as a sentence, for error messages: "eager, visible, prefetch or serial".
    public static var namesInWords: String {
        names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
