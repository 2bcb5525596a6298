import Foundation
import PhotoPipeline

/// The fields of a JSON request body, read with the strictness the API promises: one place for
/// the viewport report, a new viewer, a shared link and a lab's lanes.
enum RequestFields {
    /// The optional `"strategy"` (one of `SchedulingStrategy.names`) and `"prefetch"` (rows,
    /// `Defaults.prefetchMargins`) fields.
    static func strategy(in fields: [String: Any]) throws(APIError) -> SchedulingStrategy? {
        try strategy(named: try field("strategy", String.self, in: fields), prefetch: try field("prefetch", Int.self, in: fields))
    }

    /// The strategy `name` (nil: none asked for) with `prefetch` rows (nil: the default), as `strategy(in:)` reads them.
    static func strategy(named name: String?, prefetch: Int?) throws(APIError) -> SchedulingStrategy? {
        guard let name else { return nil }
        let margin = prefetch ?? Defaults.prefetchMargin
        let margins = Defaults.prefetchMargins
        guard margins.contains(margin) else {
            throw .unprocessable("\"prefetch\" must be \(margins.lowerBound) to \(margins.upperBound) rows (got \(margin))")
        }
        guard let strategy = SchedulingStrategy(name: name, margin: margin) else {
            throw .badRequest("\"strategy\" must be \(SchedulingStrategy.namesInWords) (got \(name))")
        }
        return strategy
    }

    /// The field `name` as a `T`, nil when absent or null. JSONDecoder does the type check, being
    /// strict where JSONSerialization is not (1.5 or true is not a row number).
    static func field<T: Decodable>(_ name: String, _ type: T.Type, in fields: [String: Any]) throws(APIError) -> T? {
        guard let value = fields[name], !(value is NSNull) else { return nil }
        guard let json = try? JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed),
              let typed = try? JSONDecoder().decode(T.self, from: json)
        else {
            throw .badRequest("\"\(name)\" has the wrong type: " + expectation(of: name))
        }
        return typed
    }

    private static func expectation(of field: String) -> String {
        switch field {
        case "viewer": "a string"
        case "scrolling", "hidden": "true or false"
        case "strategy": "a string"
        case "showing": "an object {\"first\": N, \"last\": M} of whole numbers"
        default: "a whole number"
        }
    }
}
